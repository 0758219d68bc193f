//! WebP encoding (lossy libwebp), quality chosen per texture against a reference.
//!
//! The reference is libwebp at gltfpack's defaults (quality 84, 90 for normal maps, with
//! `emulate_jpeg_size`, method 4). Ours differs in one thing: the RGB-to-YUV conversion is
//! libwebp's "sharp" iterative one. WebP stores chroma at half resolution, and the plain
//! conversion lets neighbouring colours bleed into each other, which costs 1-5 dB of RGB PSNR
//! wherever chroma has edges (fabric weaves, ORM maps whose channels are unrelated). With that
//! error gone, a lower quality factor reaches the reference's PSNR in fewer bytes; how much lower
//! depends on the content (from 60 to over 86 on the bench), so it is searched for each texture:
//! the lowest quality whose PSNR is at least the reference's and whose size is at most its size,
//! else the reference encoding itself. The search runs on the whole image when it is small and on
//! a sample of tiles when it is large, so that it costs a fraction of the final encoding; a large
//! image's encoding is then checked against the reference encoded whole, and the reference kept if
//! the sample misled.
use super::quality::psnr_rgba;
use super::roles::Role;
use super::sample::sample;
use crate::error::{MeshError, Result};
use crate::in_parallel;
use libwebp_sys as sys;
use std::ffi::c_int;

/// Reference quality factors: gltfpack's defaults (texture quality 8 of 10).
const REFERENCE_QUALITY: f32 = 84.0;
const REFERENCE_NORMAL_QUALITY: f32 = 90.0;
/// libwebp's method 4 (of 0-6): gltfpack's. Method 6 saved a few percent for 10-70x the time.
const METHOD: c_int = 4;
/// On a sample, the chosen quality must beat the reference by this much, since the whole image
/// can land a little either side of its sample: at 0.1 dB, CesiumMan and CesiumMilkTruck came
/// out 0.1-0.4 dB under the reference; at 0.3 dB, 0.02-0.03 dB over it.
const SAMPLE_MARGIN_DB: f64 = 0.3;
const SAMPLE_MARGIN_BYTES: f64 = 0.97;
/// Pixels in the sample of a large image. The whole-image check below makes a misleading sample
/// cost only the saving, never the bar, so the sample is kept small: 256², a sixteenth of the
/// search cost at 1024² against searching the whole image.
const SAMPLE_PIXELS: usize = 256 * 256;
/// A trial that meets the floor by less than this is taken without looking for a lower quality:
/// about two quality steps, where each further trial costs a whole encoding.
const CLOSE_ENOUGH_DB: f64 = 0.25;
/// PSNR rises about 0.12 dB per quality step on the bench's textures: the first guess's slope.
const DB_PER_QUALITY_STEP: f64 = 0.12;
/// Steps aim this far above the floor: landing just under it costs one more whole encoding.
const AIM_ABOVE_DB: f64 = 0.08;
const MAX_TRIALS: usize = 3;
const FIRST_GUESS: f32 = 70.0;
const LOWEST_QUALITY: f32 = 20.0;
const HIGHEST_QUALITY: f32 = 98.0;

/// A libwebp picture in YUV(A), converted once and encoded at several settings.
struct Picture(sys::WebPPicture);

impl Picture {
    fn new(rgba: &[u8], width: usize, height: usize, opaque: bool, sharp: bool) -> Result<Picture> {
        let mut picture = Picture(sys::WebPPicture::new().map_err(|()| failed("picture init"))?);
        let pic = &mut picture.0;
        pic.width = width as c_int;
        pic.height = height as c_int;
        // Sharp conversion runs from ARGB; the plain one is done by the import itself.
        pic.use_argb = c_int::from(sharp);
        // Safety: `rgba` holds width x height RGBA pixels; libwebp copies them into the picture.
        let imported = unsafe {
            if opaque {
                let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
                sys::WebPPictureImportRGB(pic, rgb.as_ptr(), (width * 3) as c_int)
            } else {
                sys::WebPPictureImportRGBA(pic, rgba.as_ptr(), (width * 4) as c_int)
            }
        };
        // Safety: the picture holds ARGB samples after the import above.
        if imported == 0 || (sharp && unsafe { sys::WebPPictureSharpARGBToYUVA(pic) } == 0) {
            return Err(failed("RGB to YUV conversion"));
        }
        Ok(picture)
    }

    fn encode(&mut self, config: &sys::WebPConfig) -> Result<Vec<u8>> {
        // Safety: the writer lives until the bytes are copied out, and is cleared after.
        unsafe {
            let mut writer = std::mem::zeroed::<sys::WebPMemoryWriter>();
            sys::WebPMemoryWriterInit(&mut writer);
            self.0.writer = Some(sys::WebPMemoryWrite);
            self.0.custom_ptr = (&raw mut writer).cast();
            let ok = sys::WebPEncode(config, &mut self.0);
            let bytes = if ok != 0 && !writer.mem.is_null() { std::slice::from_raw_parts(writer.mem, writer.size).to_vec() } else { Vec::new() };
            sys::WebPMemoryWriterClear(&mut writer);
            self.0.writer = None;
            self.0.custom_ptr = std::ptr::null_mut();
            if ok == 0 {
                return Err(failed(&format!("encoding (libwebp error {:?})", self.0.error_code)));
            }
            Ok(bytes)
        }
    }
}

/// Sharp conversion in `bands` horizontal bands converted side by side on as many threads, for
/// when cores would otherwise sit idle (a model with one texture): the conversion is iterative
/// and single-threaded in libwebp, and on a 2048² image costs as much as the encoding. Bands
/// start on even rows, so each band's chroma rows are whole; only the rows next to a band edge
/// see the edge repeated rather than their neighbour.
fn sharp_in_bands(rgba: &[u8], width: usize, height: usize, opaque: bool, bands: usize) -> Result<Picture> {
    let band_rows = height.div_ceil(bands.max(1)).next_multiple_of(2);
    if bands < 2 || band_rows >= height {
        return Picture::new(rgba, width, height, opaque, true);
    }
    let starts: Vec<usize> = (0..height).step_by(band_rows).collect();
    let parts: Vec<Result<Picture>> = std::thread::scope(|scope| {
        let handles: Vec<_> = starts
            .iter()
            .map(|&y0| {
                let rows = band_rows.min(height - y0);
                let pixels = &rgba[y0 * width * 4..(y0 + rows) * width * 4];
                scope.spawn(move || Picture::new(pixels, width, rows, opaque, true))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(failed("a conversion thread panicked")))).collect()
    });
    let mut whole = Picture(sys::WebPPicture::new().map_err(|()| failed("picture init"))?);
    whole.0.width = width as c_int;
    whole.0.height = height as c_int;
    whole.0.use_argb = 0;
    whole.0.colorspace = if opaque { sys::WebPEncCSP::WEBP_YUV420 } else { sys::WebPEncCSP::WEBP_YUV420A };
    // Safety: WebPPictureAlloc sizes the planes for width x height; every copy below stays within
    // a row of its plane (luma and alpha `width` bytes, chroma half of it rounded up).
    unsafe {
        if sys::WebPPictureAlloc(&mut whole.0) == 0 {
            return Err(failed("picture allocation"));
        }
        let chroma_width = width.div_ceil(2);
        for (part, &y0) in parts.into_iter().zip(&starts) {
            let part = part?;
            let p = &part.0;
            let rows = p.height as usize;
            let copy = |from: *const u8, from_stride: c_int, to: *mut u8, to_stride: c_int, row: usize, to_row: usize, len: usize| {
                std::ptr::copy_nonoverlapping(from.add(row * from_stride as usize), to.add(to_row * to_stride as usize), len);
            };
            for row in 0..rows {
                copy(p.y, p.y_stride, whole.0.y, whole.0.y_stride, row, y0 + row, width);
                if !opaque {
                    copy(p.a, p.a_stride, whole.0.a, whole.0.a_stride, row, y0 + row, width);
                }
            }
            for row in 0..rows.div_ceil(2) {
                copy(p.u, p.uv_stride, whole.0.u, whole.0.uv_stride, row, y0 / 2 + row, chroma_width);
                copy(p.v, p.uv_stride, whole.0.v, whole.0.uv_stride, row, y0 / 2 + row, chroma_width);
            }
        }
    }
    Ok(whole)
}

// Safety: a Picture owns the planes libwebp allocated for it and holds no thread-bound state
// (its writer pointers are set only for the length of one `encode` call), so it may move to the
// thread that converted it back from.
unsafe impl Send for Picture {}

impl Drop for Picture {
    fn drop(&mut self) {
        // Safety: the picture was initialised by WebPPictureInit; this frees what libwebp allocated.
        unsafe { sys::WebPPictureFree(&mut self.0) };
    }
}

fn failed(what: &str) -> MeshError {
    MeshError::invalid(format!("WebP encoding failed: {what}"))
}

fn config(quality: f32) -> Result<sys::WebPConfig> {
    let mut config = sys::WebPConfig::new().map_err(|()| failed("libwebp refused its default configuration"))?;
    config.quality = quality;
    config.method = METHOD;
    // libwebp's quality-to-size mapping tuned to match JPEG's: a flatter curve to search along.
    config.emulate_jpeg_size = 1;
    config.alpha_compression = 1;
    Ok(config)
}

/// PSNR of WebP `bytes` decoded against `rgba`.
fn psnr_of(bytes: &[u8], rgba: &[u8]) -> Result<f64> {
    let (mut width, mut height) = (0, 0);
    // Safety: libwebp returns width x height RGBA pixels (or null), freed with WebPFree.
    unsafe {
        let decoded = sys::WebPDecodeRGBA(bytes.as_ptr(), bytes.len(), &mut width, &mut height);
        if decoded.is_null() {
            return Err(failed("our own output does not decode"));
        }
        let pixels = std::slice::from_raw_parts(decoded, width as usize * height as usize * 4);
        let psnr = if pixels.len() == rgba.len() { Ok(psnr_rgba(rgba, pixels)) } else { Err(failed("decoded size differs")) };
        sys::WebPFree(decoded.cast());
        psnr
    }
}

/// An encoding and how it measured on the image it was made from.
#[derive(Clone)]
struct Trial {
    quality: f32,
    bytes: Vec<u8>,
    psnr: f64,
}

/// Bytes at `quality` along the line through the two trials nearest to it: encoded size grows
/// close to linearly with the quality factor over the few steps between trials.
fn bytes_at(trials: &[Trial], quality: f32) -> Option<f64> {
    let mut nearest: Vec<&Trial> = trials.iter().collect();
    nearest.sort_by(|a, b| (a.quality - quality).abs().total_cmp(&(b.quality - quality).abs()));
    let [a, b] = [nearest.first()?, nearest.get(1)?];
    let slope = (b.bytes.len() as f64 - a.bytes.len() as f64) / f64::from(b.quality - a.quality);
    Some(a.bytes.len() as f64 + slope * f64::from(quality - a.quality))
}

/// The lowest quality (in whole steps) whose encoding of `picture` reaches `psnr_floor` within
/// `byte_ceiling`, found from a first guess, a step along the typical slope and a secant step.
/// Every trial is a whole encoding, so the search gives up as soon as no quality can meet both
/// bounds (the reference encoding is then kept, which ties with gltfpack): a trial under the
/// floor and over the ceiling, or a next step whose bytes, extrapolated, would be over it.
fn search(picture: &mut Picture, rgba: &[u8], psnr_floor: f64, byte_ceiling: usize) -> Result<Option<Trial>> {
    Ok(search_trials(picture, rgba, psnr_floor, byte_ceiling)?
        .into_iter()
        .filter(|t| t.psnr >= psnr_floor && t.bytes.len() <= byte_ceiling)
        .min_by_key(|t| t.bytes.len()))
}

/// Every encoding `search` made, in order.
fn search_trials(picture: &mut Picture, rgba: &[u8], psnr_floor: f64, byte_ceiling: usize) -> Result<Vec<Trial>> {
    let mut trials: Vec<Trial> = Vec::new();
    let mut quality = FIRST_GUESS;
    let aim = psnr_floor + AIM_ABOVE_DB;
    for _ in 0..MAX_TRIALS {
        if trials.iter().any(|t| t.quality == quality) {
            break;
        }
        let bytes = picture.encode(&config(quality)?)?;
        let psnr = psnr_of(&bytes, rgba)?;
        let over = bytes.len() > byte_ceiling;
        let close = psnr >= psnr_floor && psnr < psnr_floor + CLOSE_ENOUGH_DB && !over;
        let hopeless = psnr < psnr_floor && over;
        trials.push(Trial { quality, bytes, psnr });
        if close || hopeless {
            break;
        }
        // The next guess: along the secant of the two trials that bracket the floor most
        // closely, or along the typical slope from the one trial so far, aiming a little above
        // the floor so that the step lands on a usable encoding rather than just under it.
        let last = trials.last().expect("a trial");
        let below = trials.iter().filter(|t| t.psnr < psnr_floor).max_by(|a, b| a.quality.total_cmp(&b.quality));
        let above = trials.iter().filter(|t| t.psnr >= psnr_floor).min_by(|a, b| a.quality.total_cmp(&b.quality));
        let next = match (below, above) {
            (Some(lo), Some(hi)) if hi.quality - lo.quality <= 1.0 => break,
            (Some(lo), Some(hi)) => {
                let t = ((aim - lo.psnr) / (hi.psnr - lo.psnr).max(1e-6)).min(1.0);
                (f64::from(lo.quality) + t * f64::from(hi.quality - lo.quality)).ceil() as f32
            }
            _ => (f64::from(last.quality) + (aim - last.psnr) / DB_PER_QUALITY_STEP).ceil() as f32,
        };
        quality = next.clamp(LOWEST_QUALITY, HIGHEST_QUALITY);
        if bytes_at(&trials, quality).is_some_and(|b| b > byte_ceiling as f64) {
            break;
        }
    }
    Ok(trials)
}

/// `rgba` holds width x height RGBA pixels; an opaque image is written without an alpha plane.
/// `threads` is how many cores this image may use (more than one only when the model has fewer
/// images than the machine has cores).
pub fn encode(rgba: &[u8], width: u32, height: u32, role: Role, threads: u32) -> Result<Vec<u8>> {
    let (width, height) = (width as usize, height as usize);
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let reference_quality = if role == (Role::Data { normal: true }) { REFERENCE_NORMAL_QUALITY } else { REFERENCE_QUALITY };
    let sampled = sample(rgba, width, height, SAMPLE_PIXELS);
    let (probe, probe_width, probe_height) = match &sampled {
        Some((pixels, w, h)) => (pixels.as_slice(), *w, *h),
        None => (rgba, width, height),
    };
    let reference = Picture::new(probe, probe_width, probe_height, opaque, false)?.encode(&config(reference_quality)?)?;
    let reference_psnr = psnr_of(&reference, probe)?;
    let mut sharp = Picture::new(probe, probe_width, probe_height, opaque, true)?;
    match sampled {
        None => Ok(search(&mut sharp, probe, reference_psnr, reference.len())?.map_or(reference, |t| t.bytes)),
        Some(_) => {
            let ceiling = (reference.len() as f64 * SAMPLE_MARGIN_BYTES) as usize;
            let chosen = search(&mut sharp, probe, reference_psnr + SAMPLE_MARGIN_DB, ceiling)?;
            drop(sharp);
            let whole_reference = || Picture::new(rgba, width, height, opaque, false)?.encode(&config(reference_quality)?);
            let Some(trial) = chosen else { return whole_reference() };
            // The sample predicts; the whole image decides. libwebp spreads its quantizers over
            // segments it picks from the whole picture, which a mosaic of tiles can misjudge: on
            // a foliage normal map (mostly flat, leaves here and there) the quality chosen on the
            // sample came out 0.83 dB under the reference on the whole image.
            // Both whole encodings (the chosen quality after the sharp conversion, and the
            // reference) with their decodes, side by side where this image has the cores: the
            // same bytes either way.
            let mut wholes = in_parallel::map(&[true, false], threads >= 2, |&chosen| -> Result<(Vec<u8>, f64)> {
                let bytes = match chosen {
                    true => sharp_in_bands(rgba, width, height, opaque, threads as usize)?.encode(&config(trial.quality)?)?,
                    false => whole_reference()?,
                };
                let psnr = psnr_of(&bytes, rgba)?;
                Ok((bytes, psnr))
            })
            .into_iter();
            let (ours, ours_psnr) = wholes.next().expect("two encodings")?;
            let (reference, reference_psnr) = wholes.next().expect("two encodings")?;
            let better = ours.len() <= reference.len() && ours_psnr >= reference_psnr;
            Ok(if better { ours } else { reference })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(x: usize, y: usize) -> u8 {
        let h = (x as u32).wrapping_mul(374_761_393) ^ (y as u32).wrapping_mul(668_265_263);
        let h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
        (h >> 24) as u8
    }

    /// A weave of two unrelated colours in threads a few pixels wide, with some grain: chroma
    /// edges everywhere, as on the SheenCloth fabric.
    fn weave(size: usize) -> Vec<u8> {
        let mut rgba = Vec::with_capacity(size * size * 4);
        for y in 0..size {
            for x in 0..size {
                let grain = hash(x, y) / 32;
                let warp = ((x / 3) + (y / 6)) % 2 == 0;
                let [r, g, b] = if warp { [190, 50, 70] } else { [40, 150, 190] };
                rgba.extend_from_slice(&[r + grain, g + grain, b - grain, 255]);
            }
        }
        rgba
    }

    fn reference(rgba: &[u8], size: usize, quality: f32) -> (usize, f64) {
        let bytes = Picture::new(rgba, size, size, true, false).unwrap().encode(&config(quality).unwrap()).unwrap();
        (bytes.len(), psnr_of(&bytes, rgba).unwrap())
    }

    #[test]
    fn a_small_texture_is_smaller_than_the_reference_at_no_lower_psnr() {
        let rgba = weave(128);
        let (reference_bytes, reference_psnr) = reference(&rgba, 128, REFERENCE_QUALITY);
        let ours = encode(&rgba, 128, 128, Role::Color, 1).unwrap();
        let psnr = psnr_of(&ours, &rgba).unwrap();
        assert!(psnr >= reference_psnr, "{psnr} dB against the reference's {reference_psnr} dB");
        // Sharp YUV pays off on chroma edges: the search must find a lower quality, not fall back.
        assert!(ours.len() < reference_bytes * 9 / 10, "{} bytes against the reference's {reference_bytes}", ours.len());
    }

    #[test]
    fn a_large_texture_is_searched_on_a_sample_and_still_beats_the_reference() {
        let rgba = weave(1024);
        assert!(sample(&rgba, 1024, 1024, SAMPLE_PIXELS).is_some_and(|(pixels, w, h)| w * h < 1024 * 1024 && pixels.len() == w * h * 4));
        let (reference_bytes, reference_psnr) = reference(&rgba, 1024, REFERENCE_QUALITY);
        let ours = encode(&rgba, 1024, 1024, Role::Color, 2).unwrap();
        let psnr = psnr_of(&ours, &rgba).unwrap();
        assert!(psnr >= reference_psnr && ours.len() < reference_bytes, "{} B at {psnr} dB against {reference_bytes} B at {reference_psnr} dB", ours.len());
    }

    #[test]
    fn the_search_stops_when_no_quality_can_meet_both_bounds() {
        let rgba = weave(128);
        let mut picture = Picture::new(&rgba, 128, 128, true, true).unwrap();
        // Under the floor and over the ceiling at once: no higher or lower quality can help.
        assert_eq!(search_trials(&mut picture, &rgba, 99.0, 10).unwrap().len(), 1);
        // A reachable floor under a ceiling that the step towards it would break: two trials.
        let first = search_trials(&mut picture, &rgba, 0.0, usize::MAX).unwrap().remove(0);
        let trials = search_trials(&mut picture, &rgba, first.psnr + 3.0, first.bytes.len() + 1).unwrap();
        assert!(trials.len() <= 2, "{} trials", trials.len());
        assert!(search(&mut picture, &rgba, first.psnr + 3.0, first.bytes.len() + 1).unwrap().is_none());
    }

    #[test]
    fn bytes_are_extrapolated_along_the_two_nearest_trials() {
        let trial = |quality: f32, len: usize| Trial { quality, bytes: vec![0; len], psnr: 0.0 };
        let trials = [trial(60.0, 1000), trial(70.0, 1500), trial(40.0, 100)];
        assert_eq!(bytes_at(&trials, 80.0), Some(2000.0));
        assert_eq!(bytes_at(&trials[..1], 80.0), None);
    }

    #[test]
    fn a_sampled_texture_never_loses_to_the_reference_on_the_whole_image() {
        // Mostly flat with a few busy patches, as a foliage normal map: a sample of tiles sees a
        // different mix of flat and busy than the whole image.
        let size = 1024;
        let busy = weave(size);
        let mut rgba = vec![0u8; size * size * 4];
        for (i, pixel) in rgba.chunks_exact_mut(4).enumerate() {
            let (x, y) = (i % size, i / size);
            let patch = ((x / 90) * 7 + (y / 70) * 3) % 11 == 0;
            pixel.copy_from_slice(if patch { &busy[i * 4..i * 4 + 4] } else { &[128, 128, 255, 255] });
        }
        let (reference_bytes, reference_psnr) = reference(&rgba, size, REFERENCE_NORMAL_QUALITY);
        let ours = encode(&rgba, size as u32, size as u32, Role::Data { normal: true }, 2).unwrap();
        let psnr = psnr_of(&ours, &rgba).unwrap();
        assert!(psnr >= reference_psnr && ours.len() <= reference_bytes, "{} B at {psnr} dB against {reference_bytes} B at {reference_psnr} dB", ours.len());
    }

    #[test]
    fn sharp_conversion_in_bands_encodes_as_close_as_in_one_piece() {
        let rgba = weave(512);
        let whole = Picture::new(&rgba, 512, 512, true, true).unwrap().encode(&config(80.0).unwrap()).unwrap();
        let banded = sharp_in_bands(&rgba, 512, 512, true, 3).unwrap().encode(&config(80.0).unwrap()).unwrap();
        let (a, b) = (psnr_of(&whole, &rgba).unwrap(), psnr_of(&banded, &rgba).unwrap());
        assert!((a - b).abs() < 0.05, "{a} dB in one piece, {b} dB in bands");
        assert!(banded.len().abs_diff(whole.len()) < whole.len() / 100, "{} B against {} B", banded.len(), whole.len());
        // With alpha, the alpha plane is carried over band by band too.
        let translucent: Vec<u8> = rgba.chunks_exact(4).enumerate().flat_map(|(i, p)| [p[0], p[1], p[2], (i % 251) as u8]).collect();
        let whole = Picture::new(&translucent, 512, 512, false, true).unwrap().encode(&config(80.0).unwrap()).unwrap();
        let banded = sharp_in_bands(&translucent, 512, 512, false, 2).unwrap().encode(&config(80.0).unwrap()).unwrap();
        let (a, b) = (psnr_of(&whole, &translucent).unwrap(), psnr_of(&banded, &translucent).unwrap());
        assert!((a - b).abs() < 0.05, "{a} dB in one piece, {b} dB in bands, with alpha");
    }
}
