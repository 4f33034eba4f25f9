//! Resume preparation (SPEC §8): what Codex does once to the replayed history when it resumes,
//! before any request. R1 cuts long tool outputs as `record_items` does; R2 prepares images and
//! audio. Both work on an item's text and splice their changes in: every other byte stays.

use std::borrow::Cow;
use std::ops::Range;

use super::item::{Fields, Flags, Item, ItemKind};
use super::media::{self, Detail, Outcome, Read};
use super::parts::{self, PartKind};
use super::truncate::{self, Policy};
use crate::json::{self, Parser};

/// What resume preparation is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prep {
    /// The truncation policy as configured (the ×1.2 is applied here); `None` for no cut.
    pub truncation: Option<Policy>,
    /// R1 and R2 run at all (`--no-resume-prep` turns them off).
    pub enabled: bool,
    /// The model can take `detail: "original"`; else Codex sends such an image as `"high"`
    /// (sized for original detail all the same).
    pub original_detail: bool,
}

impl Default for Prep {
    /// `tokens:10000`, what Codex's model catalog gives every current model but one.
    fn default() -> Self {
        Prep {
            truncation: Some(Policy::Tokens(10_000)),
            enabled: true,
            original_detail: true,
        }
    }
}

/// One change preparation made to an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// R1 cut the output: its text bytes before and after.
    Truncated { before: u64, after: u64 },
    /// R2 replaced a media part with this placeholder.
    Replaced(&'static str),
    /// R2 rewrote an image or audio URL's MIME type.
    Rewritten { audio: bool },
    /// R2 re-encoded an image as Codex does: resized to fit its limits, or a GIF as PNG.
    Reencoded { resized: bool },
    /// R2 sent an image's `detail: "original"` as `"high"` (the model cannot take it).
    Lowered,
}

/// What preparation found in an item: its changes, and the images it keeps that Codex would
/// resize.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Prepared {
    pub changes: Vec<Edit>,
    pub resize: u32,
    /// The indexes of the image parts replaced by a placeholder.
    pub replaced: Vec<u32>,
}

impl Prepared {
    pub fn truncated(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c, Edit::Truncated { .. }))
    }

    /// Media parts replaced or rewritten.
    pub fn media(&self) -> u32 {
        let media = self
            .changes
            .iter()
            .filter(|c| !matches!(c, Edit::Truncated { .. } | Edit::Lowered));
        media.count() as u32
    }
}

/// Whether preparation may change this item at all, from its header: R1 needs an output appended
/// from a `response_item` long enough to go over the budget; R2 needs media in a Codex record.
pub(crate) fn may_change(item: &Item, prep: Prep) -> bool {
    if !prep.enabled {
        return false;
    }
    let output = matches!(
        item.kind,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput
    );
    let r1 = output
        && item.has(Flags::APPENDED)
        && prep.truncation.is_some_and(|policy| {
            // Empty text parts go whatever the budget.
            if item.has(Flags::EMPTY_TEXT) {
                return true;
            }
            // Decoded text is never longer than its JSON, and each text part or audio part costs
            // at most a third of its JSON's bytes in tokens.
            let budget = policy.serialization_budget();
            let len = u64::from(item.len);
            match budget {
                Policy::Bytes(b) => len > b,
                Policy::Tokens(t) => len > t.saturating_mul(3),
            }
        });
    let r2 = item.has(Flags::CODEX) && item.has(Flags::MEDIA);
    r1 || r2
}

/// The counts of an output whose `output` is the JSON string `raw` and that has no media: only
/// R1 can touch it, and whether it cuts is told by the decoded length alone (`decoded`, when a
/// walk counted it), without decoding.
pub(crate) fn string_output_counts(
    item: &Item,
    raw: &str,
    decoded: Option<usize>,
) -> Option<super::item::PrepCounts> {
    let output = matches!(
        item.kind,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput
    );
    if !output || !raw.starts_with('"') || item.has(Flags::MEDIA) {
        return None;
    }
    let policy = Prep::default().truncation?.serialization_budget();
    let len = decoded.unwrap_or_else(|| json::decoded_len(raw));
    let cut = item.has(Flags::APPENDED) && !truncate::keeps(len as u64, policy);
    Some(super::item::PrepCounts::new(cut, 0, 0, 0, 0))
}

/// The counts the report needs of an item under the default view (see [`item::PrepCounts`]);
/// `known`: the long strings of `text` a walk found valid, or none.
pub(crate) fn default_counts(
    item: &Item,
    text: &str,
    known: &[json::Walked],
) -> super::item::PrepCounts {
    let mut out = Vec::new();
    let prepared = prepare(item, text, known, Prep::default(), Read::Header, &mut out);
    let (mut audio, mut images) = (item.prep.audio(), item.prep.images());
    if !prepared.changes.is_empty() {
        let text = match out.is_empty() {
            true => text,
            false => std::str::from_utf8(&out).unwrap_or_default(),
        };
        let f = Fields::of(text, &[]);
        let value = if item.kind == ItemKind::Message {
            &f.content
        } else {
            &f.output
        };
        let left = parts::parts(text, &[], value);
        audio = left.iter().filter(|p| p.kind == PartKind::Audio).count() as u32;
        images = left.iter().filter(|p| p.kind == PartKind::Image).count() as u32;
    }
    super::item::PrepCounts::new(
        prepared.truncated(),
        prepared.media(),
        prepared.resize,
        audio,
        images,
    )
}

/// Prepares an item's text: R1 (when it is an output appended from a `response_item`), then R2,
/// reading as much of each image as `read` says. Writes the prepared text into `out` (with
/// [`Read::Header`], images Codex re-encodes keep their bytes) and returns what changed; `out`
/// is left empty when the text is as it was (no item's text is empty), so that an image's
/// base64 is not copied only to be read as it was.
/// `known`: the long strings of `text` a walk found valid (the classifier's), or none.
pub(crate) fn prepare(
    item: &Item,
    text: &str,
    known: &[json::Walked],
    prep: Prep,
    read: Read,
    out: &mut Vec<u8>,
) -> Prepared {
    let mut prepared = Prepared::default();
    out.clear();
    if !may_change(item, prep) {
        return prepared;
    }
    let output = matches!(
        item.kind,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput
    );
    let mut cut = None;
    if output
        && item.has(Flags::APPENDED)
        && let Some(policy) = prep.truncation
    {
        let mut bytes = Vec::new();
        let budget = policy.serialization_budget();
        if let Some(change) = truncate_output(text, known, budget, &mut bytes) {
            prepared.changes.push(change);
            cut = Some(bytes);
        }
    }
    if !(item.has(Flags::CODEX) && item.has(Flags::MEDIA)) {
        if let Some(bytes) = cut {
            *out = bytes;
        }
        return prepared;
    }
    // A cut text's strings are walked anew.
    let (current, known) = match cut {
        Some(bytes) => (
            Cow::Owned(String::from_utf8(bytes).unwrap_or_default()),
            &[][..],
        ),
        None => (Cow::Borrowed(text), known),
    };
    let edits = media_edits(
        item,
        &current,
        known,
        read,
        prep.original_detail,
        &mut prepared,
    );
    if !edits.is_empty() || matches!(current, Cow::Owned(_)) {
        json::splice(&current, edits, out);
    }
    prepared
}

/// The members of an item's text, and where its long strings are: the walks after this one step
/// over them (an image's base64 is most of its item). When a walk found them already
/// (`known`), the text is walked stepping over them.
fn fields_walked<'k>(text: &str, known: &'k [json::Walked]) -> (Fields, Cow<'k, [json::Walked]>) {
    if !known.is_empty() {
        return (Fields::of(text, known), Cow::Borrowed(known));
    }
    let mut p = Parser::remembering(text);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    (fields, Cow::Owned(p.long_strings()))
}

/// R1: the output cut to `budget` (already ×1.2), spliced into `out`; `None` if it fits.
fn truncate_output(
    text: &str,
    known: &[json::Walked],
    budget: Policy,
    out: &mut Vec<u8>,
) -> Option<Edit> {
    let (f, walked) = fields_walked(text, known);
    let range = f.output.clone()?;
    let raw = &text[range.clone()];
    let (replacement, before, after) = if raw.starts_with('"') {
        let len =
            json::known_decoded_len(&walked, &range).unwrap_or_else(|| json::decoded_len(raw));
        if truncate::keeps(len as u64, budget) {
            return None;
        }
        let cut = match truncate::token_ends(len as u64, budget) {
            // A token budget keeps two ends: only they are decoded (outputs run to megabytes).
            Some((left, right, marker)) => {
                let (head, tail) = json::decode_ends(raw, len, left, right)?;
                format!("{head}{marker}{tail}")
            }
            None => {
                let decoded = json::decode_str(raw)?;
                let cut = truncate::truncate_text(&decoded, budget);
                if matches!(cut, Cow::Borrowed(_)) {
                    return None;
                }
                cut.into_owned()
            }
        };
        let mut encoded = Vec::new();
        json::encode_str(cut.as_bytes(), &mut encoded);
        (encoded, len as u64, cut.len() as u64)
    } else if raw.starts_with('[') {
        truncate_items(text, &f.output, budget)?
    } else {
        return None;
    };
    out.extend_from_slice(&text.as_bytes()[..range.start]);
    out.extend_from_slice(&replacement);
    out.extend_from_slice(&text.as_bytes()[range.end..]);
    Some(Edit::Truncated { before, after })
}

/// R1 on an array output (`truncate_function_output_items_with_policy`): text parts spend the
/// budget in order, the first that does not fit is cut and every later one dropped; images,
/// encrypted content and parts of other types stay and cost nothing; audio parts cost their
/// estimated tokens and are dropped whole when they do not fit. Returns the new array and the
/// text bytes before and after, or `None` when nothing changes.
fn truncate_items(
    text: &str,
    value: &Option<Range<usize>>,
    budget: Policy,
) -> Option<(Vec<u8>, u64, u64)> {
    let bytes = matches!(budget, Policy::Bytes(_));
    let mut remaining = match budget {
        Policy::Bytes(b) | Policy::Tokens(b) => b,
    };
    let (mut omitted_text, mut omitted_audio) = (0u64, 0u64);
    let (mut before, mut after) = (0u64, 0u64);
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut changed = false;
    for part in parts::parts(text, &[], value) {
        let raw = &text[part.range.clone()];
        match part.kind {
            PartKind::InputText => {
                let body = part.text(text).unwrap_or_default();
                // Codex 0.169 drops empty text parts of tool outputs (live check, class H).
                if body.is_empty() {
                    changed = true;
                    continue;
                }
                before += body.len() as u64;
                if remaining == 0 {
                    omitted_text += 1;
                    changed = true;
                    continue;
                }
                let cost = if bytes {
                    body.len() as u64
                } else {
                    truncate::tokens_for_bytes(body.len() as u64)
                };
                if cost <= remaining {
                    remaining -= cost;
                    after += body.len() as u64;
                    kept.push(raw.as_bytes().to_vec());
                    continue;
                }
                let policy = if bytes {
                    Policy::Bytes(remaining)
                } else {
                    Policy::Tokens(remaining)
                };
                let snippet = truncate::truncate_text(&body, policy);
                remaining = 0;
                changed = true;
                if snippet.is_empty() {
                    omitted_text += 1;
                    continue;
                }
                after += snippet.len() as u64;
                let mut spliced = Vec::new();
                let at = part.text.clone().unwrap_or_default();
                spliced.extend_from_slice(&text.as_bytes()[part.range.start..at.start]);
                json::encode_str(snippet.as_bytes(), &mut spliced);
                spliced.extend_from_slice(&text.as_bytes()[at.end..part.range.end]);
                kept.push(spliced);
            }
            PartKind::Audio => {
                let url = audio_url(text, &[], &part.range);
                let tokens = media::audio_tokens(&url);
                let cost = if bytes {
                    tokens.saturating_mul(4)
                } else {
                    tokens
                };
                if cost <= remaining {
                    remaining -= cost;
                    kept.push(raw.as_bytes().to_vec());
                } else {
                    omitted_audio += 1;
                    changed = true;
                }
            }
            PartKind::OutputText | PartKind::Image | PartKind::Other => {
                kept.push(raw.as_bytes().to_vec());
            }
        }
    }
    if !changed {
        return None;
    }
    for (n, what) in [(omitted_text, "text"), (omitted_audio, "audio")] {
        if n > 0 {
            let marker = format!("[omitted {n} {what} items ...]");
            after += marker.len() as u64;
            kept.push(text_part(&marker));
        }
    }
    let mut array = vec![b'['];
    array.extend_from_slice(&kept.join(&b","[..]));
    array.push(b']');
    Some((array, before, after))
}

/// A member of a part object, decoded.
fn part_member<'t>(
    text: &'t str,
    known: &[json::Walked],
    range: &Range<usize>,
    name: &str,
) -> Option<Cow<'t, str>> {
    let found = json::member_knowing(text, known, range.start, name);
    json::string_at(text, &found)
}

fn audio_url<'t>(text: &'t str, known: &[json::Walked], part: &Range<usize>) -> Cow<'t, str> {
    part_member(text, known, part, "audio_url").unwrap_or_default()
}

/// R2 over the media parts of a message's content or an output's array: the edits of `text`
/// it makes, in order.
fn media_edits(
    item: &Item,
    text: &str,
    known: &[json::Walked],
    read: Read,
    original_detail: bool,
    prepared: &mut Prepared,
) -> Vec<(Range<usize>, Vec<u8>)> {
    let (f, known) = fields_walked(text, known);
    let value = match item.kind {
        ItemKind::Message => &f.content,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput => &f.output,
        _ => &None,
    };
    let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    for (index, part) in parts::parts(text, &known, value).into_iter().enumerate() {
        let (outcome, member, resized) = match part.kind {
            PartKind::Image => {
                let url = part_member(text, &known, &part.range, "image_url").unwrap_or_default();
                let detail =
                    Detail::of(part_member(text, &known, &part.range, "detail").as_deref());
                // A model that cannot take original detail is sent the image as `"high"`, sized
                // for original detail still (live check, Codex 0.169.0 with a slug not in its
                // catalog).
                let lowered = detail == Detail::Original && !original_detail;
                let image = media::image(&url, detail, read);
                if lowered && !matches!(image.outcome, Outcome::Placeholder(_)) {
                    prepared.changes.push(Edit::Lowered);
                    if let Some(at) = json::member_knowing(text, &known, part.range.start, "detail")
                    {
                        edits.push((at, br#""high""#.to_vec()));
                    }
                }
                if image.resize {
                    prepared.resize += 1;
                }
                (image.outcome, "image_url", image.resize)
            }
            PartKind::Audio => (
                media::audio(&audio_url(text, &known, &part.range)),
                "audio_url",
                false,
            ),
            PartKind::InputText | PartKind::OutputText | PartKind::Other => continue,
        };
        match outcome {
            Outcome::Keep => {}
            Outcome::Placeholder(placeholder) => {
                prepared.changes.push(Edit::Replaced(placeholder));
                // Codex 0.169 marks an image's placeholder as its own, not an audio part's
                // (live check with gpt-5.6-sol, fixture prep_audio).
                if part.kind == PartKind::Image {
                    prepared.replaced.push(index as u32);
                }
                edits.push((part.range.clone(), text_part(placeholder)));
            }
            Outcome::Reencoded(url) => {
                prepared.changes.push(Edit::Reencoded { resized });
                replace_member(
                    text,
                    &known,
                    &part.range,
                    member,
                    url.as_deref(),
                    &mut edits,
                );
            }
            Outcome::Url(url) => {
                prepared.changes.push(Edit::Rewritten {
                    audio: member == "audio_url",
                });
                replace_member(text, &known, &part.range, member, Some(&url), &mut edits);
            }
        }
    }
    edits.sort_by_key(|(range, _)| range.start);
    edits
}

/// Queues the edit that sets the string `member` of the part at `part` to `value` (none for
/// `None`).
fn replace_member(
    text: &str,
    known: &[json::Walked],
    part: &Range<usize>,
    member: &str,
    value: Option<&str>,
    edits: &mut Vec<(Range<usize>, Vec<u8>)>,
) {
    let at = json::member_knowing(text, known, part.start, member);
    if let (Some(value), Some(at)) = (value, at) {
        let mut replacement = Vec::new();
        json::encode_str(value.as_bytes(), &mut replacement);
        edits.push((at, replacement));
    }
}

/// An `input_text` part holding `text`, as the JSON rollcall writes.
fn text_part(text: &str) -> Vec<u8> {
    let mut part = br#"{"type":"input_text","text":"#.to_vec();
    json::encode_str(text.as_bytes(), &mut part);
    part.push(b'}');
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Cutting an output that way decodes only its ends, and gives what decoding it whole
        /// and cutting the text gives, whether or not its long strings are known.
        #[test]
        fn a_long_output_is_cut_as_its_whole_text_would_be(
            inner in json::string_texts(&[
                "a", "bc", "é", "😀", "\\n", "\\\"", "\\\\", "\\u0041", "\\u00e9", "\\u0800",
                "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041",
            ], 0..300),
            max in 1u64..40,
        ) {
            let raw = format!("\"{inner}\"");
            let text = format!(r#"{{"type":"function_call_output","call_id":"c","output":{raw}}}"#);
            let budget = Policy::Tokens(max);
            let whole = json::decode_str(&raw).unwrap();
            let expected = match truncate::truncate_text(&whole, budget) {
                Cow::Borrowed(_) => None,
                Cow::Owned(cut) => {
                    let mut encoded = Vec::new();
                    json::encode_str(cut.as_bytes(), &mut encoded);
                    let spliced = text.replace(&raw, std::str::from_utf8(&encoded).unwrap());
                    Some((spliced, whole.len() as u64, cut.len() as u64))
                }
            };
            // Walked afresh, or stepping over the long strings a first walk found.
            let mut first = Parser::remembering(&text);
            first.value().unwrap();
            let walked = first.long_strings();
            for known in [&[][..], &walked] {
                let mut out = Vec::new();
                let edit = truncate_output(&text, known, budget, &mut out);
                let got = edit.map(|edit| {
                    let Edit::Truncated { before, after } = edit else { panic!("{edit:?}") };
                    (String::from_utf8(out).unwrap(), before, after)
                });
                proptest::prop_assert_eq!(&got, &expected);
            }
        }
    }
}
