//! WebP encoding (libwebp, lossy, method 6: the most rate-distortion search for the bytes).
//! Qualities were chosen against gltfpack -tw on the generated bench model (bench/mesh/textures.ts):
//! colour keeps libwebp's perceptual tuning; data textures (normals, ORM) turn off spatial noise
//! shaping, which moves bits to where eyes look, and use the sharp RGB-to-YUV conversion, since
//! WebP halves chroma resolution and independent channels otherwise bleed into each other at edges.
use super::roles::Role;
use crate::error::{MeshError, Result};
use webp::{Encoder, WebPConfig};

const COLOR_QUALITY: f32 = 90.0;
const NORMAL_QUALITY: f32 = 90.0;
const DATA_QUALITY: f32 = 88.0;

fn config(role: Role) -> Result<WebPConfig> {
    let mut config = WebPConfig::new().map_err(|()| MeshError::invalid("libwebp refused its default configuration"))?;
    config.lossless = 0;
    config.alpha_compression = 1;
    config.method = 6;
    match role {
        Role::Color => config.quality = COLOR_QUALITY,
        Role::Data { normal } => {
            config.quality = if normal { NORMAL_QUALITY } else { DATA_QUALITY };
            config.sns_strength = 0;
            config.use_sharp_yuv = 1;
        }
    }
    Ok(config)
}

/// `rgba` holds width x height RGBA pixels; an opaque image is written without an alpha plane.
pub fn encode(rgba: &[u8], width: u32, height: u32, role: Role) -> Result<Vec<u8>> {
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let rgb: Vec<u8>;
    let encoder = if opaque {
        rgb = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        Encoder::from_rgb(&rgb, width, height)
    } else {
        Encoder::from_rgba(rgba, width, height)
    };
    let encoded = encoder.encode_advanced(&config(role)?).map_err(|e| MeshError::invalid(format!("WebP encoding failed: {e:?}")))?;
    Ok(encoded.to_vec())
}
