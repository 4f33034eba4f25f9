//! Resume-time media preparation (SPEC §8 R2), as Codex does it at the reference commit
//! (`core/src/image_preparation.rs`, `utils/image`, `utils/audio`): which image and audio parts it
//! replaces with a placeholder, which URLs it rewrites, and which images it resizes or re-encodes.
//! The report reads only an image's header; the view decodes it as Codex does ([`reencode`]).

use super::reencode::{self, Limits, Sent, Unprocessable};

/// Placeholders, byte for byte.
pub(crate) const IMAGE_REMOTE: &str =
    "image content omitted because remote image URLs are not supported";
pub(crate) const IMAGE_LOW: &str = "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'";
pub(crate) const IMAGE_PROCESS: &str = "image content omitted because it could not be processed";
pub(crate) const IMAGE_TOO_LARGE: &str =
    "image content omitted because it exceeded the supported size limit; use a smaller image";
pub(crate) const AUDIO_PROCESS: &str = "audio content omitted because it could not be processed";
pub(crate) const AUDIO_FORMAT: &str =
    "audio content omitted because its format is not supported; use wav, mp3, m4a, webm, or ogg";
pub(crate) const AUDIO_TOO_LARGE: &str =
    "audio content omitted because it exceeded the supported size limit; use a smaller audio file";

/// `MAX_PROMPT_IMAGE_INPUT_BYTES`: checked against the base64 text, before it is decoded.
const IMAGE_BASE64_LIMIT: usize = 1 << 30;
/// `MAX_PROMPT_AUDIO_BASE64_BYTES`, and the decoded limit (50 MiB).
const AUDIO_BASE64_LIMIT: usize = 69_905_068;
const AUDIO_BYTES_LIMIT: usize = 52_428_800;

/// What preparation does to one media part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Left as it is.
    Keep,
    /// Replaced by an `input_text` part with this text.
    Placeholder(&'static str),
    /// Kept, with this URL.
    Url(String),
    /// Kept, re-encoded by Codex (a GIF, or an image it resizes): with its new URL, or `None`
    /// when only its header was read ([`Read::Header`]).
    Reencoded(Option<String>),
}

/// How much of an image is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// Its header: format and size, enough to count what Codex changes.
    Header,
    /// All of it, decoded and re-encoded as Codex does: what the view sends.
    Whole,
}

/// An image's `detail`, as far as the rules tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Absent, `auto` or `high` (and any value Codex would not read: see docs/decisions.md).
    Default,
    Original,
    Low,
}

impl Detail {
    pub fn of(raw: Option<&str>) -> Detail {
        match raw {
            Some("low") => Detail::Low,
            Some("original") => Detail::Original,
            _ => Detail::Default,
        }
    }

    /// Longest side and 32×32 patches an image may have before Codex resizes it.
    fn limits(self) -> Limits {
        match self {
            Detail::Original => Limits {
                side: 6000,
                patches: 10_000,
            },
            Detail::Default | Detail::Low => Limits {
                side: 2048,
                patches: 2500,
            },
        }
    }
}

/// An image part prepared: what happens to it, and whether Codex resizes what it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Image {
    pub outcome: Outcome,
    pub resize: bool,
}

fn starts_ci(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Prepares an `input_image` part's URL, reading as much of the image as `read` says.
pub(crate) fn image(url: &str, detail: Detail, read: Read) -> Image {
    let placeholder = |text| Image {
        outcome: Outcome::Placeholder(text),
        resize: false,
    };
    let keep = Image {
        outcome: Outcome::Keep,
        resize: false,
    };
    if url.split_once(':').is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    }) {
        return placeholder(IMAGE_REMOTE);
    }
    if !starts_ci(url, "data:") {
        return keep;
    }
    if detail == Detail::Low {
        return placeholder(IMAGE_LOW);
    }
    let Some((meta, payload)) = url[5..].split_once(',') else {
        return placeholder(IMAGE_PROCESS);
    };
    if !meta
        .split(';')
        .any(|part| part.eq_ignore_ascii_case("base64"))
    {
        return placeholder(IMAGE_PROCESS);
    }
    if payload.len() > IMAGE_BASE64_LIMIT {
        return placeholder(IMAGE_TOO_LARGE);
    }
    let Some(len) = base64_len(payload) else {
        return placeholder(IMAGE_PROCESS);
    };
    // The format is in the image's first bytes: bytes that show none (random or foreign data)
    // are not decoded further, and not handed to the decoder either, which knows these four
    // formats only.
    let mut first = Vec::new();
    decode_prefix(payload, len.min(16), &mut first);
    let Some(mime) = image_format(&first) else {
        return placeholder(IMAGE_PROCESS);
    };
    // The size is in the header: only as many bytes are decoded as it takes.
    let header = from_prefix(payload, len, |bytes| imagesize::blob_size(bytes).ok())
        .map(|size| (mime, size));
    let limits = detail.limits();
    let resize = header.as_ref().is_some_and(|(_, size)| {
        let side = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        !reencode::fits(side(size.width), side(size.height), limits)
    });
    let kept = |mime: &str| {
        let canonical = format!("data:{mime};base64,{payload}");
        let outcome = if canonical == url {
            Outcome::Keep
        } else {
            Outcome::Url(canonical)
        };
        Image { outcome, resize }
    };
    match read {
        Read::Header => match header {
            None => placeholder(IMAGE_PROCESS),
            Some(("image/gif", _)) => Image {
                outcome: Outcome::Reencoded(None),
                resize,
            },
            Some(_) if resize => Image {
                outcome: Outcome::Reencoded(None),
                resize,
            },
            Some((mime, _)) => kept(mime),
        },
        Read::Whole => {
            let mut bytes = Vec::with_capacity(len + 2);
            decode_prefix(payload, len, &mut bytes);
            match reencode::prepare(&bytes, limits) {
                Err(Unprocessable) => placeholder(IMAGE_PROCESS),
                Ok(Sent::Same(mime)) => kept(mime),
                Ok(Sent::New(mime, bytes)) => Image {
                    outcome: Outcome::Reencoded(Some(format!(
                        "data:{mime};base64,{}",
                        base64_encode(&bytes)
                    ))),
                    resize,
                },
            }
        }
    }
}

/// The MIME type of an image Codex can decode, told by its magic bytes.
fn image_format(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Codex's canonical audio MIME types (`canonical_audio_mime`), matched ignoring ASCII case.
fn canonical_audio(mime: &str) -> Option<&'static str> {
    let m = mime.to_ascii_lowercase();
    Some(match m.as_str() {
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "audio/wav",
        "audio/mpeg" | "audio/mp3" => "audio/mpeg",
        "audio/mp4" | "audio/m4a" | "audio/x-m4a" => "audio/mp4",
        "audio/webm" => "audio/webm",
        "audio/ogg" => "audio/ogg",
        _ => return None,
    })
}

/// A data URL's MIME type, base64 payload and canonical audio type, when it has them all.
fn audio_parts(url: &str) -> Result<(&'static str, &str), &'static str> {
    if !starts_ci(url, "data:") {
        return Err(AUDIO_PROCESS);
    }
    let Some((meta, payload)) = url.split_once(',') else {
        return Err(AUDIO_PROCESS);
    };
    let mut parts = meta[5..].split(';');
    let mime = parts.next().unwrap_or_default();
    if mime.is_empty() {
        return Err(AUDIO_PROCESS);
    }
    let canonical = canonical_audio(mime).ok_or(AUDIO_FORMAT)?;
    if !parts.any(|part| part.eq_ignore_ascii_case("base64")) {
        return Err(AUDIO_PROCESS);
    }
    Ok((canonical, payload))
}

/// Prepares an `input_audio` part's URL.
pub(crate) fn audio(url: &str) -> Outcome {
    let (canonical, payload) = match audio_parts(url) {
        Ok(parts) => parts,
        Err(placeholder) => return Outcome::Placeholder(placeholder),
    };
    if payload.len() > AUDIO_BASE64_LIMIT {
        return Outcome::Placeholder(AUDIO_TOO_LARGE);
    }
    // No audio at all is audio Codex 0.169 cannot process (live check, class I).
    let Some(len) = base64_len(payload).filter(|&len| len > 0) else {
        return Outcome::Placeholder(AUDIO_PROCESS);
    };
    if len > AUDIO_BYTES_LIMIT {
        return Outcome::Placeholder(AUDIO_TOO_LARGE);
    }
    let prepared = format!("data:{canonical};base64,{payload}");
    if prepared == url {
        Outcome::Keep
    } else {
        Outcome::Url(prepared)
    }
}

/// Codex's estimate of an audio part's tokens (`estimate_audio_token_count`): ten per second
/// of audio, or one per four bytes of the URL when the duration cannot be read. rollcall reads
/// the duration of WAV audio from its header; other formats count by their URL (docs/decisions.md).
pub(crate) fn audio_tokens(url: &str) -> u64 {
    let by_length = (url.len() as u64).div_ceil(4);
    let Some((meta, payload)) = url.split_once(',') else {
        return by_length;
    };
    let Some(meta) = meta.get(5..) else {
        return by_length;
    };
    let mut parts = meta.split(';');
    let canonical = canonical_audio(parts.next().unwrap_or_default());
    if canonical != Some("audio/wav") || !parts.any(|p| p.eq_ignore_ascii_case("base64")) {
        return by_length;
    }
    let seconds = base64_len(payload)
        .and_then(|len| from_prefix(payload, len, |bytes| wav_seconds(bytes, len)));
    match seconds {
        Some(seconds) if seconds.is_finite() => (seconds * 10.0).ceil() as u64,
        _ => by_length,
    }
}

/// The duration of PCM WAV audio of `total` bytes, from its first `bytes` (the headers): its
/// data chunk's frames over its sample rate.
fn wav_seconds(bytes: &[u8], total: usize) -> Option<f64> {
    if bytes.len() < 12 || &bytes[..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return None;
    }
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let mut at = 12;
    let mut format = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32_at(at + 4)? as usize;
        let body = at + 8;
        match id {
            b"fmt " => {
                let rate = u32_at(body + 4)?;
                let block_align = u16_at(body + 12)?;
                format = Some((rate, block_align));
            }
            b"data" => {
                let (rate, block_align) = format?;
                if rate == 0 || block_align == 0 {
                    return None;
                }
                // The samples there are: `bytes` may be the first of `total` bytes.
                let available = total.saturating_sub(body).min(len);
                let frames = (available / usize::from(block_align)) as f64;
                return Some(frames / f64::from(rate));
            }
            _ => {}
        }
        at = body + len + (len & 1);
    }
    None
}

/// `read` of the first bytes that base64 `payload` (valid, decoding to `len` bytes) holds: a
/// header is read from a few kilobytes; only when that is not enough is more decoded, up to all.
fn from_prefix<T>(payload: &str, len: usize, read: impl Fn(&[u8]) -> Option<T>) -> Option<T> {
    let mut decoded = Vec::new();
    for want in [4 << 10, 256 << 10, len] {
        let want = want.min(len);
        decode_prefix(payload, want, &mut decoded);
        if let Some(found) = read(&decoded) {
            return Some(found);
        }
        if want == len {
            break;
        }
    }
    None
}

/// Decodes the first `bytes` bytes of valid base64 `text` into `out` (replacing it). Whole
/// quads are looked up in a table and written in place, without a branch per digit: a view
/// decodes every image whole, and images are megabytes of base64.
fn decode_prefix(text: &str, bytes: usize, out: &mut Vec<u8>) {
    /// The value of each base64 digit; anything else (padding) counts as zero.
    const VALUE: [u8; 256] = {
        let mut value = [0; 256];
        let mut c = 0;
        while c < 256 {
            if let Some(v) = digit(c as u8) {
                value[c] = v;
            }
            c += 1;
        }
        value
    };
    let quad = |q: &[u8]| {
        let d = |i: usize| u32::from(q.get(i).map_or(0, |&c| VALUE[usize::from(c)]));
        (d(0) << 18 | d(1) << 12 | d(2) << 6 | d(3)).to_be_bytes()
    };
    let quads = bytes.div_ceil(3).min(text.len().div_ceil(4));
    out.clear();
    out.resize(quads * 3, 0);
    let (whole, rest) = text.as_bytes()[..(quads * 4).min(text.len())].as_chunks::<4>();
    for (q, three) in whole.iter().zip(out.chunks_exact_mut(3)) {
        three.copy_from_slice(&quad(q)[1..]);
    }
    if !rest.is_empty() {
        let at = whole.len() * 3;
        out[at..at + 3].copy_from_slice(&quad(rest)[1..]);
    }
    out.truncate(bytes);
}

/// Whether `c` is a digit of the standard base64 alphabet, without a branch.
fn is_digit(c: u8) -> bool {
    (c | 0x20).wrapping_sub(b'a') < 26 || c.wrapping_sub(b'0') < 10 || c == b'+' || c == b'/'
}

/// Whether every byte is a base64 digit: 32 at a time, without an early exit inside them, so
/// that the check runs on vector instructions (images are megabytes of base64).
fn all_digits(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        if !block.iter().fold(true, |ok, &c| ok & is_digit(c)) {
            return false;
        }
    }
    blocks.remainder().iter().all(|&c| is_digit(c))
}

/// The value of a base64 digit of the standard alphabet.
const fn digit(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// How many bytes `text` decodes to, if it is base64 as Codex's decoder takes it: the standard
/// alphabet, canonical `=` padding, no leftover bits, nothing else.
pub(crate) fn base64_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let pad = b.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    let data = &b[..b.len() - pad];
    if !all_digits(data) {
        return None;
    }
    let last = data.last().copied().and_then(digit).unwrap_or(0);
    let leftover = match pad {
        1 => last & 0b11,
        2 => last & 0b1111,
        _ => 0,
    };
    (leftover == 0).then_some(b.len() / 4 * 3 - pad)
}

/// `bytes` in standard base64 with padding, as Codex writes a data URL.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * i) & 63) as usize]
            } else {
                b'='
            });
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The bytes of base64 `text`, checked as [`base64_len`] checks it.
#[cfg(test)]
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let len = base64_len(text)?;
    let mut out = Vec::with_capacity(len + 2);
    decode_prefix(text, len, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    #[test]
    fn base64_as_codex_decodes_it() {
        assert_eq!(base64_len(""), Some(0));
        assert_eq!(base64_len("AAAA"), Some(3));
        assert_eq!(base64_len("AA=="), Some(1));
        assert_eq!(base64_len("AB=="), None); // leftover bits
        assert_eq!(base64_len("AAA="), Some(2));
        assert_eq!(base64_len("AAB="), None);
        for bad in [
            "%%%",
            "not base64",
            "AAA",
            "A===",
            "====",
            "AA=A",
            "AA-_",
            "AA A",
        ] {
            assert_eq!(base64_len(bad), None, "{bad}");
        }
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
    }

    proptest::proptest! {
        /// Any prefix decoded is the bytes that were encoded, up to that length.
        #[test]
        fn a_decoded_prefix_is_the_start_of_the_bytes(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            want in 0usize..200,
        ) {
            let text = base64_encode(&bytes);
            proptest::prop_assert_eq!(base64_decode(&text), Some(bytes.clone()));
            let want = want.min(bytes.len());
            let mut out = Vec::new();
            decode_prefix(&text, want, &mut out);
            proptest::prop_assert_eq!(&out[..], &bytes[..want]);
        }
    }

    #[test]
    fn base64_digits_are_the_standard_alphabet() {
        for c in 0..=255u8 {
            assert_eq!(is_digit(c), digit(c).is_some(), "{c:#x}");
        }
        let mut long = "A".repeat(100);
        assert!(all_digits(long.as_bytes()));
        long.replace_range(40..41, "-");
        assert!(!all_digits(long.as_bytes()));
        long.replace_range(40..41, "A");
        long.push('_');
        assert!(!all_digits(long.as_bytes()));
    }

    /// A JPEG whose size comes after 300 KiB of other segments: more of it is decoded, as
    /// needed, and the size read is the one there.
    #[test]
    fn an_image_size_deep_in_the_file_is_found() {
        let mut jpeg = vec![0xFF, 0xD8];
        for _ in 0..5 {
            jpeg.extend_from_slice(&[0xFF, 0xE1, 0xFF, 0xFF]);
            jpeg.extend(std::iter::repeat_n(0x20, 0xFFFF - 2));
        }
        // SOF0: length 17, 8 bits, height 2000, width 3000, three components.
        jpeg.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x07, 0xD0, 0x0B, 0xB8, 0x03]);
        jpeg.extend_from_slice(&[1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
        let url = format!("data:image/jpeg;base64,{}", encode(&jpeg));
        let prepared = image(&url, Detail::Default, Read::Header);
        assert_eq!(prepared.outcome, Outcome::Reencoded(None));
        assert!(prepared.resize, "3000 x 2000 is over 2048 a side");
        // Its pixels are not there: decoded, it cannot be processed.
        let decoded = image(&url, Detail::Default, Read::Whole);
        assert_eq!(decoded.outcome, Outcome::Placeholder(IMAGE_PROCESS));
        let size = from_prefix(&url[23..], jpeg.len(), |b| imagesize::blob_size(b).ok()).unwrap();
        assert_eq!((size.width, size.height), (3000, 2000));
    }

    #[test]
    fn images_follow_codex_order_of_checks() {
        let png = format!("data:image/png;base64,{PNG}");
        assert_eq!(
            image(&png, Detail::Default, Read::Whole).outcome,
            Outcome::Keep
        );
        let wrong = format!("data:image/jpeg;base64,{PNG}");
        assert_eq!(
            image(&wrong, Detail::Default, Read::Whole).outcome,
            Outcome::Url(png.clone())
        );
        let upper = format!("DATA:image/png;BASE64,{PNG}");
        assert_eq!(
            image(&upper, Detail::Default, Read::Whole).outcome,
            Outcome::Url(png.clone())
        );
        let p = |url: &str, d| image(url, d, Read::Whole).outcome;
        assert_eq!(
            p("HTTPS://x/y.png", Detail::Low),
            Outcome::Placeholder(IMAGE_REMOTE)
        );
        assert_eq!(p("file:///x.png", Detail::Default), Outcome::Keep);
        assert_eq!(p(&png, Detail::Low), Outcome::Placeholder(IMAGE_LOW));
        assert_eq!(
            p("data:image/png,abc", Detail::Default),
            Outcome::Placeholder(IMAGE_PROCESS)
        );
        assert_eq!(
            p("data:image/png;base64,%%%", Detail::Default),
            Outcome::Placeholder(IMAGE_PROCESS)
        );
        assert_eq!(
            p("data:image/png;base64,AAAA", Detail::Default),
            Outcome::Placeholder(IMAGE_PROCESS)
        );
    }

    #[test]
    fn audio_follows_codex_order_of_checks() {
        assert_eq!(
            audio("https://x/a.wav"),
            Outcome::Placeholder(AUDIO_PROCESS)
        );
        assert_eq!(
            audio("data:audio/flac,xyz"),
            Outcome::Placeholder(AUDIO_FORMAT)
        );
        assert_eq!(
            audio("data:audio/wav,xyz"),
            Outcome::Placeholder(AUDIO_PROCESS)
        );
        assert_eq!(
            audio("data:;base64,AAAA"),
            Outcome::Placeholder(AUDIO_PROCESS)
        );
        assert_eq!(
            audio("data:audio/wav;base64,%%"),
            Outcome::Placeholder(AUDIO_PROCESS)
        );
        assert_eq!(audio("data:audio/wav;base64,AAAA"), Outcome::Keep);
        assert_eq!(
            audio("data:audio/webm;codecs=opus;base64,AAAA"),
            Outcome::Url("data:audio/webm;base64,AAAA".into())
        );
        assert_eq!(
            audio("data:Audio/X-WAV;base64,AAAA"),
            Outcome::Url("data:audio/wav;base64,AAAA".into())
        );
    }

    #[test]
    fn wav_duration_gives_ten_tokens_a_second() {
        // 80,000 8-bit mono samples at 8 kHz: 10 s (the upstream test's WAV).
        let mut wav = b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0".to_vec();
        wav.extend_from_slice(&8000u32.to_le_bytes());
        wav.extend_from_slice(&8000u32.to_le_bytes());
        wav.extend_from_slice(&1u16.to_le_bytes());
        wav.extend_from_slice(&8u16.to_le_bytes());
        wav.extend_from_slice(b"data");
        wav.extend_from_slice(&80_000u32.to_le_bytes());
        wav.extend(std::iter::repeat_n(0x80, 80_000));
        let url = format!("data:audio/wav;base64,{}", encode(&wav));
        assert_eq!(audio_tokens(&url), 100);
        assert_eq!(audio_tokens("data:audio/mpeg;base64,AAAA"), 7);
        // Cut short: the samples that are there count (and are past the first bytes decoded).
        wav.truncate(wav.len() - 40_000);
        let url = format!("data:audio/wav;base64,{}", encode(&wav));
        assert_eq!(audio_tokens(&url), 50);
    }

    fn encode(bytes: &[u8]) -> String {
        base64_encode(bytes)
    }
}

#[cfg(test)]
mod empty_audio_tests {
    use super::*;

    #[test]
    fn audio_with_no_payload_cannot_be_processed() {
        assert_eq!(
            audio("data:audio/wav;base64,"),
            Outcome::Placeholder(AUDIO_PROCESS)
        );
    }
}
