//! Texture quality of an optimized model against its source, for the bench and the tests: every
//! output image is decoded as a viewer would (PNG, JPEG, WebP, or KTX2 through the Basis
//! Universal transcoder) and compared with the source image it came from. Tools may reorder or
//! merge images, so the source is the one with the same aspect ratio that matches best, scaled
//! to the output's size when the output was scaled down.
use super::quality::psnr_rgba;
use super::{decode_rgba, format_of, ktx2_decode::decode_ktx2_rgba};
use crate::error::{MeshError, Result};
use crate::model::{Image, Model};
use image::{imageops::FilterType, RgbaImage};
use serde_json::{json, Value};

/// Any image a glTF may hold, as RGBA pixels.
pub fn decode_any(index: usize, image: &Image) -> Result<RgbaImage> {
    match image.mime_type.as_str() {
        "image/webp" => {
            let decoded = webp::Decoder::new(&image.data).decode().ok_or_else(|| MeshError::invalid(format!("image {index}: WebP does not decode")))?;
            let (width, height) = (decoded.width(), decoded.height());
            let rgba: Vec<u8> = if decoded.is_alpha() { decoded.to_vec() } else { decoded.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect() };
            RgbaImage::from_raw(width, height, rgba).ok_or_else(|| MeshError::invalid(format!("image {index}: WebP size mismatch")))
        }
        "image/ktx2" => decode_ktx2_rgba(&image.data),
        other => {
            let format = format_of(other)
                .ok_or_else(|| MeshError::unsupported(format!("image {index} is {other}"), "Only PNG, JPEG, WebP and KTX2 images are compared."))?;
            decode_rgba(index, &image.data, format)
        }
    }
}

fn same_aspect(a: &RgbaImage, b: &RgbaImage) -> bool {
    let (aw, ah) = (f64::from(a.width()), f64::from(a.height()));
    let (bw, bh) = (f64::from(b.width()), f64::from(b.height()));
    ((aw / ah) / (bw / bh) - 1.0).abs() < 0.02
}

/// One row per output image: format, bytes, size, and PSNR against the best-matching source image.
pub fn compare_textures(source: &Model, output: &Model) -> Result<Vec<Value>> {
    let sources: Vec<RgbaImage> = source.images.iter().enumerate().map(|(i, img)| decode_any(i, img)).collect::<Result<_>>()?;
    let mut rows = Vec::new();
    for (index, image) in output.images.iter().enumerate() {
        let decoded = decode_any(index, image)?;
        let mut best: Option<(usize, f64)> = None;
        for (s, original) in sources.iter().enumerate().filter(|(_, o)| same_aspect(o, &decoded)) {
            let psnr = if original.dimensions() == decoded.dimensions() {
                psnr_rgba(original.as_raw(), decoded.as_raw())
            } else {
                let scaled = image::imageops::resize(original, decoded.width(), decoded.height(), FilterType::CatmullRom);
                psnr_rgba(scaled.as_raw(), decoded.as_raw())
            };
            if best.is_none_or(|(_, b)| psnr > b) {
                best = Some((s, psnr));
            }
        }
        let (source_image, psnr) = best.map_or((None, None), |(s, p)| (Some(s), Some(if p.is_finite() { (p * 100.0).round() / 100.0 } else { 999.0 })));
        rows.push(json!({
            "image": index,
            "source_image": source_image,
            "format": image.mime_type.trim_start_matches("image/"),
            "bytes": image.data.len(),
            "source_bytes": source_image.map(|s| source.images[s].data.len()),
            "size": [decoded.width(), decoded.height()],
            "psnr": psnr,
        }));
    }
    Ok(rows)
}
