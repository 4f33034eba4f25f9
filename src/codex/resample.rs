//! The triangle-filter resize Codex applies to an image over its limits, with the bytes of
//! `image` 0.25.9's `resize_exact(.., FilterType::Triangle)` (the crate Codex resizes with), done
//! in an order that suits the cache and every core.
//!
//! `image` resamples the columns first, then the rows. Each value of either pass is a sum, in
//! source order, of source values times normalized triangle weights, in `f32`, starting from
//! zero; the second pass clamps the sum to the channel's range and rounds it half away from zero.
//! A value depends on that sequence of operations alone, not on the order the values are visited
//! in. So this module keeps the sequence and changes the order: `image` walks its second pass
//! column by column through an `f32` image, one cache miss per value; here both passes go row by
//! row, a band of rows per thread. 8-bit images only (what PNG, JPEG and WebP decode to); any
//! other layout goes to `image` itself. Proptests hold the bytes to `image::imageops::resize`.

use std::sync::{Mutex, PoisonError};

use image::{DynamicImage, ImageBuffer, Pixel};

/// Where each output position reads along one axis: its first source position and the weights
/// of the positions from there on.
struct Taps {
    /// Per output position: the first source position, and the range of its weights.
    spans: Vec<(usize, std::ops::Range<usize>)>,
    weights: Vec<f32>,
}

/// `image`'s triangle kernel.
fn triangle(x: f32) -> f32 {
    if x.abs() < 1.0 { 1.0 - x.abs() } else { 0.0 }
}

impl Taps {
    /// The taps of resampling `from` positions to `to` (`image`'s `vertical_sample` and
    /// `horizontal_sample`, support 1 for the triangle, widened by the ratio when shrinking).
    fn new(from: u32, to: u32) -> Taps {
        let ratio = from as f32 / to as f32;
        let scale = if ratio < 1.0 { 1.0 } else { ratio };
        let support = scale;
        let mut taps = Taps {
            spans: Vec::with_capacity(to as usize),
            weights: Vec::new(),
        };
        for out in 0..to {
            let centre = (out as f32 + 0.5) * ratio;
            let left = ((centre - support).floor() as i64).clamp(0, i64::from(from) - 1);
            let right = ((centre + support).ceil() as i64).clamp(left + 1, i64::from(from));
            let centre = centre - 0.5;
            let first = taps.weights.len();
            let mut sum = 0.0;
            for i in left..right {
                let w = triangle((i as f32 - centre) / scale);
                taps.weights.push(w);
                sum += w;
            }
            for w in &mut taps.weights[first..] {
                *w /= sum;
            }
            taps.spans.push((left as usize, first..taps.weights.len()));
        }
        taps
    }

    fn of(&self, out: usize) -> (usize, &[f32]) {
        let (start, range) = &self.spans[out];
        (*start, &self.weights[range.clone()])
    }
}

/// `image` resized to `width` × `height` as `image.resize_exact(width, height,
/// FilterType::Triangle)` resizes it.
pub(crate) fn resize(image: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    let same = || image.resize_exact(width, height, image::imageops::FilterType::Triangle);
    let (w, h) = (image.width(), image.height());
    if w == 0 || h == 0 || width == 0 || height == 0 || (w, h) == (width, height) {
        return same();
    }
    let resized = match image {
        DynamicImage::ImageLuma8(b) => buffer(b, width, height).map(DynamicImage::ImageLuma8),
        DynamicImage::ImageLumaA8(b) => buffer(b, width, height).map(DynamicImage::ImageLumaA8),
        DynamicImage::ImageRgb8(b) => buffer(b, width, height).map(DynamicImage::ImageRgb8),
        DynamicImage::ImageRgba8(b) => buffer(b, width, height).map(DynamicImage::ImageRgba8),
        _ => None,
    };
    resized.unwrap_or_else(same)
}

/// One 8-bit buffer resized, with its colour space; `None` if the sizes overflow memory.
fn buffer<P: Pixel<Subpixel = u8>>(
    source: &ImageBuffer<P, Vec<u8>>,
    width: u32,
    height: u32,
) -> Option<ImageBuffer<P, Vec<u8>>> {
    let channels = usize::from(P::CHANNEL_COUNT);
    let (w, h) = (source.width() as usize, source.height() as usize);
    let row = w.checked_mul(channels)?;
    let out_row = (width as usize).checked_mul(channels)?;
    let mut pixels = vec![0u8; out_row.checked_mul(height as usize)?];
    let (columns, rows) = (Taps::new(h as u32, height), Taps::new(w as u32, width));
    let raw = source.as_raw();
    bands(&mut pixels, out_row, |y, out, middle: &mut Vec<f32>| {
        // The first pass makes one row of the column-resampled image...
        middle.clear();
        middle.resize(row, 0.0);
        let (start, weights) = columns.of(y);
        for (k, &weight) in weights.iter().enumerate() {
            let from = &raw[(start + k) * row..][..row];
            for (sum, &value) in middle.iter_mut().zip(from) {
                *sum += f32::from(value) * weight;
            }
        }
        // ...and the second resamples it into this output row.
        for (x, pixel) in out.chunks_exact_mut(channels).enumerate() {
            let (start, weights) = rows.of(x);
            let mut sum = [0f32; 4];
            for (k, &weight) in weights.iter().enumerate() {
                let value = &middle[(start + k) * channels..][..channels];
                for c in 0..channels {
                    sum[c] += value[c] * weight;
                }
            }
            for (byte, &sum) in pixel.iter_mut().zip(&sum) {
                *byte = nearest(sum);
            }
        }
    });
    let mut out = ImageBuffer::from_raw(width, height, pixels)?;
    out.set_color_space(source.color_space()).ok()?;
    Some(out)
}

/// `sum` clamped to a byte's range and rounded half away from zero, as `f32::round` rounds:
/// `x - trunc(x)` is exact, so comparing it with one half decides as `round` does.
fn nearest(sum: f32) -> u8 {
    let x = sum.clamp(0.0, 255.0);
    let whole = x as u8;
    whole + u8::from(x - f32::from(whole) >= 0.5)
}

/// Fills `out`, rows of `row` values, by calling `fill(y, row, scratch)` for each row: in bands
/// of rows on every core when the work is worth the threads, each with a scratch vector.
fn bands<T: Send>(out: &mut [T], row: usize, fill: impl Fn(usize, &mut [T], &mut Vec<f32>) + Sync) {
    const WORTH_A_THREAD: usize = 1 << 18;
    let row = row.max(1);
    let rows = out.len() / row;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(out.len() / WORTH_A_THREAD)
        .clamp(1, rows.max(1));
    let per_band = rows.div_ceil(threads).max(1);
    let chunks = Mutex::new(out.chunks_mut(per_band * row).enumerate());
    let work = || {
        let mut scratch = Vec::new();
        loop {
            let next = chunks.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((band, chunk)) = next else { break };
            for (i, values) in chunk.chunks_exact_mut(row).enumerate() {
                fill(band * per_band + i, values, &mut scratch);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            // A thread that cannot start leaves its band to the others.
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
}

#[cfg(test)]
mod tests {
    use image::imageops::{self, FilterType};
    use image::{GrayAlphaImage, GrayImage, RgbImage, RgbaImage};
    use proptest::prelude::*;

    use super::*;

    /// Source pixels from a seed: noise, so that every weight shows in the sums.
    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    }

    /// Resizes one image both ways and compares the bytes and the colour space.
    fn same_as_image(channels: u8, (w, h): (u32, u32), (width, height): (u32, u32), seed: u64) {
        let bytes = noise(w as usize * h as usize * usize::from(channels), seed);
        let source = match channels {
            1 => DynamicImage::ImageLuma8(GrayImage::from_raw(w, h, bytes).unwrap()),
            2 => DynamicImage::ImageLumaA8(GrayAlphaImage::from_raw(w, h, bytes).unwrap()),
            3 => DynamicImage::ImageRgb8(RgbImage::from_raw(w, h, bytes).unwrap()),
            _ => DynamicImage::ImageRgba8(RgbaImage::from_raw(w, h, bytes).unwrap()),
        };
        let want = imageops::resize(&source, width, height, FilterType::Triangle);
        let want_dynamic = source.resize_exact(width, height, FilterType::Triangle);
        let got = resize(&source, width, height);
        assert_eq!(got.color(), want_dynamic.color());
        assert_eq!(got.color_space(), want_dynamic.color_space());
        assert_eq!((got.width(), got.height()), (width, height));
        assert_eq!(
            got.as_bytes(),
            want_dynamic.as_bytes(),
            "{w}x{h} -> {width}x{height}"
        );
        // `resize_exact` is `imageops::resize` on the buffer; the RGBA view of both agrees.
        assert_eq!(got.to_rgba8().as_raw(), want.as_raw());
    }

    #[test]
    fn nearest_rounds_as_f32_round_does() {
        let mut values = vec![-1.0, -0.0, f32::MIN_POSITIVE, 255.5, 256.0, 1e9];
        for n in 0..=255u8 {
            for x in [f32::from(n), f32::from(n) + 0.5] {
                values.extend([x.next_down(), x, x.next_up()]);
            }
        }
        for x in values {
            assert_eq!(nearest(x), x.clamp(0.0, 255.0).round() as u8, "{x}");
        }
    }

    proptest! {
        #[test]
        fn nearest_agrees_anywhere(x in -10.0f32..300.0) {
            prop_assert_eq!(nearest(x), x.clamp(0.0, 255.0).round() as u8);
        }

        #[test]
        fn bytes_are_the_ones_image_computes(
            channels in 1u8..=4,
            w in 1u32..90,
            h in 1u32..90,
            width in 1u32..90,
            height in 1u32..90,
            seed: u64,
        ) {
            same_as_image(channels, (w, h), (width, height), seed);
        }
    }

    /// Sizes Codex resizes real images to (`reencode`'s tests), scaled to keep the test quick,
    /// and bands split over threads.
    #[test]
    fn large_images_split_over_threads_match_too() {
        for (from, to) in [
            ((1024, 1024), (800, 800)),
            ((3201, 31), (3200, 30)),
            ((1024, 625), (1023, 624)),
            ((2049, 1), (2048, 1)),
            ((1, 2049), (1, 1024)),
            ((300, 200), (900, 700)),
        ] {
            same_as_image(3, from, to, 7);
            same_as_image(4, from, to, 11);
        }
    }
}
