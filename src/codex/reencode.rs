//! The bytes of an image as Codex sends them on resume (`utils/image` and
//! `core/src/image_preparation.rs` at the reference commit, checked against Codex 0.169.0): every
//! data-URL image is decoded with the `image` crate; one over the limits of its `detail` is
//! resized to fit them (a triangle filter, exact target dimensions: [`super::resample`]) and
//! re-encoded in its own format; a GIF is always re-encoded as PNG; any other image keeps its
//! bytes. The crate and its codecs are pinned in Cargo.lock to the versions Codex builds with,
//! since their encoders decide the bytes.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{
    ColorType, DynamicImage, GenericImageView, ImageDecoder, ImageEncoder, ImageFormat, ImageReader,
};

/// The patch Codex's budget counts in (`PROMPT_IMAGE_PATCH_SIZE`).
const PATCH: u32 = 32;

/// How far an image may go before Codex resizes it: its longest side and its 32×32 patches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub side: u32,
    pub patches: u64,
}

/// What Codex sends of a decodable image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sent {
    /// The source bytes, as this MIME type.
    Same(&'static str),
    /// New bytes, of this MIME type.
    New(&'static str, Vec<u8>),
}

/// An image Codex cannot decode or encode: it sends the could-not-be-processed placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unprocessable;

/// What Codex sends of the image `bytes` under `limits` (`load_for_prompt_bytes_uncached` with
/// `ResizeWithLimits`).
pub(crate) fn prepare(bytes: &[u8], limits: Limits) -> Result<Sent, Unprocessable> {
    let format = image::guess_format(bytes).map_err(|_| Unprocessable)?;
    let mut decoder = ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .map_err(|_| Unprocessable)?;
    // The colour profile (only an RGB one: bytes 16..20 name its colour space) and EXIF data go
    // into a re-encoded image, as Codex copies them.
    let icc = decoder
        .icc_profile()
        .ok()
        .flatten()
        .filter(|profile| profile.get(16..20) == Some(b"RGB "));
    let exif = decoder.exif_metadata().ok().flatten();
    let decoded = DynamicImage::from_decoder(decoder).map_err(|_| Unprocessable)?;
    let (width, height) = decoded.dimensions();
    let target = fit(width, height, limits);
    let passes = matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP
    );
    if target == (width, height) {
        if passes {
            return Ok(Sent::Same(mime(format)));
        }
        return encode(&decoded, ImageFormat::Png, icc, exif);
    }
    let resized = super::resample::resize(&decoded, target.0, target.1);
    let format = if passes { format } else { ImageFormat::Png };
    encode(&resized, format, icc, exif)
}

/// The MIME type Codex gives an image of `format`.
fn mime(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::Gif => "image/gif",
        ImageFormat::WebP => "image/webp",
        _ => "image/png",
    }
}

/// Whether an image of this size is within `limits`.
pub(crate) fn fits(width: u32, height: u32, limits: Limits) -> bool {
    let patches = u64::from(width.div_ceil(PATCH)) * u64::from(height.div_ceil(PATCH));
    width <= limits.side && height <= limits.side && patches <= limits.patches
}

/// The size Codex resizes an image to (`prompt_image_output_dimensions_for_limits`): first the
/// longest side scaled down to the limit (rounded), then, if the patches are still too many, the
/// area scaled to the budget with the patch grid rounded down, each side floored.
pub(crate) fn fit(width: u32, height: u32, limits: Limits) -> (u32, u32) {
    let (width, height) = (width.max(1), height.max(1));
    if fits(width, height, limits) {
        return (width, height);
    }
    let scale = (f64::from(limits.side) / f64::from(width.max(height))).min(1.0);
    let width = ((f64::from(width) * scale).round() as u32).max(1);
    let height = ((f64::from(height) * scale).round() as u32).max(1);
    if fits(width, height, limits) {
        return (width, height);
    }
    let (w, h, patch) = (f64::from(width), f64::from(height), f64::from(PATCH));
    let mut scale = (patch * patch * limits.patches as f64 / w / h).sqrt();
    let (wide, high) = (w * scale / patch, h * scale / patch);
    scale *= (wide.floor() / wide).min(high.floor() / high);
    (
        ((w * scale).floor() as u32).max(1),
        ((h * scale).floor() as u32).max(1),
    )
}

/// `image` encoded as `format` (PNG and WebP as 8-bit RGBA, WebP lossless, JPEG at quality 85),
/// with the profile and EXIF data when the encoder takes them.
fn encode(
    image: &DynamicImage,
    format: ImageFormat,
    icc: Option<Vec<u8>>,
    exif: Option<Vec<u8>>,
) -> Result<Sent, Unprocessable> {
    let mut out = Vec::new();
    let (w, h) = (image.width(), image.height());
    let written = match format {
        ImageFormat::Jpeg => {
            let mut encoder = JpegEncoder::new_with_quality(&mut out, 85);
            metadata(&mut encoder, icc, exif)?;
            encoder.encode_image(image)
        }
        ImageFormat::WebP => {
            let mut encoder = WebPEncoder::new_lossless(&mut out);
            metadata(&mut encoder, icc, exif)?;
            encoder.write_image(image.to_rgba8().as_raw(), w, h, ColorType::Rgba8.into())
        }
        _ => {
            let mut encoder = PngEncoder::new(&mut out);
            metadata(&mut encoder, icc, exif)?;
            encoder.write_image(image.to_rgba8().as_raw(), w, h, ColorType::Rgba8.into())
        }
    };
    written.map_err(|_| Unprocessable)?;
    let format = match format {
        ImageFormat::Jpeg | ImageFormat::WebP => format,
        _ => ImageFormat::Png,
    };
    Ok(Sent::New(mime(format), out))
}

/// Gives the encoder the profile and EXIF data; an encoder that cannot take them fails the image,
/// as in Codex.
fn metadata(
    encoder: &mut impl ImageEncoder,
    icc: Option<Vec<u8>>,
    exif: Option<Vec<u8>>,
) -> Result<(), Unprocessable> {
    if let Some(icc) = icc {
        encoder.set_icc_profile(icc).map_err(|_| Unprocessable)?;
    }
    if let Some(exif) = exif {
        encoder.set_exif_metadata(exif).map_err(|_| Unprocessable)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HIGH: Limits = Limits {
        side: 2048,
        patches: 2500,
    };
    const ORIGINAL: Limits = Limits {
        side: 6000,
        patches: 10_000,
    };

    /// The sizes Codex 0.169.0 sent for these sources (live check, docs/dialects.md).
    #[test]
    fn resized_sizes_are_the_ones_codex_sent() {
        let high = [
            ((2048, 1249), (2046, 1248)),
            ((2000, 1300), (1969, 1280)),
            ((1601, 1601), (1600, 1600)),
            ((1601, 1600), (1568, 1568)),
            ((3000, 3000), (1600, 1600)),
            ((2049, 2049), (1600, 1600)),
            ((1650, 1550), (1632, 1533)),
            ((2560, 1440), (2048, 1152)),
            ((4000, 10), (2048, 5)),
            ((10, 4000), (5, 2048)),
            ((2304, 864), (2048, 768)),
            ((2049, 16), (2048, 16)),
            ((4096, 1), (2048, 1)),
            ((6001, 4), (2048, 1)),
            ((3000, 40), (2048, 27)),
            ((2500, 8), (2048, 7)),
            ((3000, 20), (2048, 14)),
            ((1600, 1600), (1600, 1600)),
        ];
        for ((w, h), sent) in high {
            assert_eq!(fit(w, h, HIGH), sent, "{w}x{h}");
        }
        let original = [
            ((6001, 100), (6000, 100)),
            ((6401, 100), (6000, 94)),
            ((6000, 6000), (3200, 3200)),
            ((3201, 3201), (3200, 3200)),
            ((4000, 3000), (3669, 2752)),
            ((3300, 3100), (3270, 3072)),
        ];
        for ((w, h), sent) in original {
            assert_eq!(fit(w, h, ORIGINAL), sent, "{w}x{h}");
        }
    }

    #[test]
    fn what_is_not_an_image_cannot_be_processed() {
        assert_eq!(prepare(b"not an image", HIGH), Err(Unprocessable));
        // A PNG signature with nothing after it.
        assert_eq!(prepare(b"\x89PNG\r\n\x1a\n", HIGH), Err(Unprocessable));
    }
}
