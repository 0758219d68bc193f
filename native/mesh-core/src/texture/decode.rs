//! PNG and JPEG decoding under a pixel budget. The size comes from the image header, which costs
//! nothing to read and may lie: a header claiming 100k x 100k pixels is refused before any
//! allocation, and the decoder itself is capped too in case the header understates.
use crate::error::{MeshError, Result};
use image::{ImageFormat, ImageReader, Limits, RgbaImage};
use std::io::Cursor;

/// Longest side re-encoded: WebP stops at 16383, and 8192 x 8192 (256 MB as RGBA) is the most
/// one job may hold at once.
pub const MAX_IMAGE_SIDE: u32 = 8192;
pub const MAX_IMAGE_PIXELS: u64 = MAX_IMAGE_SIDE as u64 * MAX_IMAGE_SIDE as u64;
/// 16-bit RGBA is the widest PNG the decoder produces.
const MAX_DECODER_BYTES: u64 = MAX_IMAGE_PIXELS * 8;

pub fn format_of(mime_type: &str) -> Option<ImageFormat> {
    match mime_type {
        "image/png" => Some(ImageFormat::Png),
        "image/jpeg" => Some(ImageFormat::Jpeg),
        _ => None,
    }
}

fn reader(data: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODER_BYTES);
    let mut reader = ImageReader::with_format(Cursor::new(data), format);
    reader.limits(limits);
    reader
}

fn unreadable(index: usize, e: impl std::fmt::Display) -> MeshError {
    MeshError::invalid(format!("image {index} cannot be decoded: {e}"))
}

/// A PNG's size from its IHDR chunk, which must come first: the decoder would read on to the
/// first pixel data before telling, and a hostile file need not have any.
fn png_dimensions(index: usize, data: &[u8]) -> Result<(u32, u32)> {
    let field = |at: usize| data.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    match (data.get(12..16), field(16), field(20)) {
        (Some(b"IHDR"), Some(width), Some(height)) => Ok((width, height)),
        _ => Err(unreadable(index, "no PNG header")),
    }
}

/// Width and height from the header, refused beyond the pixel budget.
pub fn checked_dimensions(index: usize, data: &[u8], format: ImageFormat) -> Result<(u32, u32)> {
    let (width, height) = match format {
        ImageFormat::Png => png_dimensions(index, data)?,
        _ => reader(data, format).into_dimensions().map_err(|e| unreadable(index, e))?,
    };
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width == 0 || height == 0 {
        return Err(MeshError::limit(
            format!("image {index} is {width} x {height} pixels; textures are re-encoded up to {MAX_IMAGE_SIDE} x {MAX_IMAGE_SIDE}"),
            "Resize the texture to at most 8192 x 8192 in an image editor, or keep textures as they are (textures: keep).",
        ));
    }
    Ok((width, height))
}

pub fn decode_rgba(index: usize, data: &[u8], format: ImageFormat) -> Result<RgbaImage> {
    checked_dimensions(index, data, format)?;
    Ok(reader(data, format).decode().map_err(|e| unreadable(index, e))?.into_rgba8())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    /// A PNG signature and IHDR chunk claiming `width` x `height`, with no pixel data.
    pub fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend(13u32.to_be_bytes());
        out.extend(&ihdr);
        out.extend(crc32(&ihdr).to_be_bytes());
        out
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn a_header_claiming_ten_gigapixels_is_a_limit_error_before_any_decoding() {
        let error = decode_rgba(3, &png_header(100_000, 100_000), ImageFormat::Png).unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("100000 x 100000"), "{}", error.message);
    }

    #[test]
    fn a_truncated_png_is_invalid_and_a_real_one_decodes() {
        let error = decode_rgba(0, &png_header(4, 4), ImageFormat::Png).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidMesh);
        let png = crate::png_image::encode_rgba(2, 1, &[255, 0, 0, 255, 0, 0, 255, 128]);
        let image = decode_rgba(0, &png, ImageFormat::Png).unwrap();
        assert_eq!((image.width(), image.height()), (2, 1));
        assert_eq!(image.as_raw(), &[255, 0, 0, 255, 0, 0, 255, 128]);
    }
}
