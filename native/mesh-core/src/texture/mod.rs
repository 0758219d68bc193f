//! Texture re-encoding for optimize_3d_model. PNG and JPEG images are decoded under a pixel
//! budget, scaled down to `max_texture_size`, and written back as they were (`keep`), as WebP
//! (EXT_texture_webp) or as KTX2 with Basis Universal (KHR_texture_basisu: ETC1S for colour,
//! UASTC for normal maps and other data). Converted textures keep no PNG fallback: the fallback
//! would cost the bytes the conversion saves, so the extension is required (write/glb.rs).
//! Images with the same pixels and role are stored once; unused images were already dropped.
#[cfg(feature = "textures")]
mod basis_file;
#[cfg(feature = "textures")]
pub mod compare;
mod decode;
#[cfg(feature = "textures")]
mod etc1s_search;
mod jobs;
#[cfg(feature = "textures")]
mod ktx2_container;
#[cfg(feature = "textures")]
pub mod ktx2_decode;
#[cfg(feature = "textures")]
mod ktx2_encode;
pub mod quality;
mod roles;
#[cfg(feature = "textures")]
mod sample;
mod size;
#[cfg(feature = "textures")]
mod webp_encode;

use crate::error::{MeshError, Result};
use crate::model::Model;
pub use decode::{decode_rgba, format_of, MAX_IMAGE_SIDE};
use image::{imageops::FilterType, ImageFormat, RgbaImage};
pub use roles::{image_roles, Role};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Whether this build carries the WebP and Basis Universal encoders (not the WASM fallback).
pub const ENCODERS_BUILT: bool = cfg!(feature = "textures");
/// Pixels one job may encode, counted at output size (so max_texture_size brings a model under
/// it): the encoders' time grows with pixels, and a job has two minutes. WebP (libwebp method 4, a
/// few trial encodings) and PNG take well under a second per megapixel; Basis Universal (ETC1S,
/// and UASTC with its rate-distortion pass) several seconds (bench/mesh/textures.ts).
fn pixel_budget(mode: TextureMode) -> u64 {
    match mode {
        TextureMode::Ktx2 => 16 << 20,
        TextureMode::Keep | TextureMode::Webp => 64 << 20,
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TextureMode {
    Keep,
    Webp,
    Ktx2,
}

impl TextureMode {
    fn name(self) -> &'static str {
        match self {
            TextureMode::Keep => "keep",
            TextureMode::Webp => "webp",
            TextureMode::Ktx2 => "ktx2",
        }
    }

    fn extension(self) -> Option<&'static str> {
        match self {
            TextureMode::Keep => None,
            TextureMode::Webp => Some("EXT_texture_webp"),
            TextureMode::Ktx2 => Some("KHR_texture_basisu"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct TextureOptions {
    pub mode: TextureMode,
    /// Longest side in pixels; None keeps the size.
    pub max_size: Option<u32>,
}

struct Encoded {
    data: Vec<u8>,
    mime_type: String,
}

fn short_format(mime_type: &str) -> &str {
    mime_type.strip_prefix("image/").unwrap_or(mime_type)
}

fn scaled(image: RgbaImage, width: u32, height: u32) -> RgbaImage {
    if (image.width(), image.height()) == (width, height) {
        image
    } else {
        // Catmull-Rom: sharper than a box or triangle filter at a fraction of Lanczos' cost.
        image::imageops::resize(&image, width, height, FilterType::CatmullRom)
    }
}

fn encode_as_source(format: ImageFormat, image: &RgbaImage) -> Result<Encoded> {
    if format == ImageFormat::Jpeg {
        let rgb = image::DynamicImage::ImageRgba8(image.clone()).into_rgb8();
        let mut data = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut data, 90)
            .encode_image(&rgb)
            .map_err(|e| MeshError::invalid(format!("JPEG encoding failed: {e}")))?;
        return Ok(Encoded { data, mime_type: "image/jpeg".into() });
    }
    Ok(Encoded { data: crate::png_image::encode_rgba(image.width(), image.height(), image.as_raw()), mime_type: "image/png".into() })
}

#[cfg(feature = "textures")]
fn encode(mode: TextureMode, format: ImageFormat, image: &RgbaImage, role: Role, threads: u32) -> Result<Encoded> {
    match mode {
        TextureMode::Keep => encode_as_source(format, image),
        TextureMode::Webp => {
            Ok(Encoded { data: webp_encode::encode(image.as_raw(), image.width(), image.height(), role, threads)?, mime_type: "image/webp".into() })
        }
        TextureMode::Ktx2 => Ok(Encoded { data: ktx2_encode::encode(image, role, threads)?, mime_type: "image/ktx2".into() }),
    }
}

#[cfg(not(feature = "textures"))]
fn encode(mode: TextureMode, format: ImageFormat, image: &RgbaImage, _role: Role, _threads: u32) -> Result<Encoded> {
    match mode {
        TextureMode::Keep => encode_as_source(format, image),
        _ => Err(encoders_missing(mode)),
    }
}

fn encoders_missing(mode: TextureMode) -> MeshError {
    MeshError::unsupported(
        format!("this server's mesh core is the WebAssembly build, which has no {} texture encoder", mode.name()),
        "Send textures: keep (optionally with max_texture_size), or retry on a server with the native mesh core.",
    )
}

/// Points every texture that shows `image` through its plain `source` at it through `extension`.
fn move_to_extension(textures: &mut [Value], image: usize, extension: &str) {
    for texture in textures.iter_mut().filter(|t| roles::plain_source(t) == Some(image)) {
        let Some(object) = texture.as_object_mut() else { continue };
        object.remove("source");
        let extensions = object.entry("extensions").or_insert_with(|| json!({}));
        extensions[extension] = json!({ "source": image });
    }
}

fn pixel_hash(image: &RgbaImage, role: Role) -> u64 {
    let mut hasher = DefaultHasher::new();
    (image.width(), image.height(), role.name(), image.as_raw()).hash(&mut hasher);
    hasher.finish()
}

/// Re-encodes the model's images in place; returns one report per image (bytes before and after).
pub fn process(model: &mut Model, options: &TextureOptions) -> Result<Vec<Value>> {
    if options.mode != TextureMode::Keep && !ENCODERS_BUILT {
        return Err(encoders_missing(options.mode));
    }
    let roles = image_roles(model);
    let whole_blocks = options.mode == TextureMode::Ktx2;
    // Every header first, so an oversized image fails the job before any pixel is decoded.
    let mut plans = Vec::with_capacity(model.images.len());
    let mut total_pixels = 0u64;
    // Kept at their size, images are never decoded, so their headers are not even read.
    let untouched = options.mode == TextureMode::Keep && options.max_size.is_none();
    for (index, image) in model.images.iter().enumerate() {
        let plan = match format_of(&image.mime_type).filter(|_| !untouched) {
            Some(format) => {
                let (width, height) = decode::checked_dimensions(index, &image.data, format)?;
                let target = size::target_size(width, height, options.max_size, whole_blocks);
                let work = options.mode != TextureMode::Keep || target != (width, height);
                total_pixels += if work { u64::from(target.0) * u64::from(target.1) } else { 0 };
                Some((format, (width, height), target, work))
            }
            None => None,
        };
        plans.push(plan);
    }
    let budget = pixel_budget(options.mode);
    if total_pixels > budget {
        return Err(MeshError::limit(
            format!("the model's textures come to {total_pixels} pixels to encode; one job encodes up to {budget} as {}", options.mode.name()),
            "Set max_texture_size (e.g. 2048) to scale the textures down, choose textures: webp, or keep them as they are.",
        ));
    }
    let jobs: Vec<jobs::Job> = plans
        .iter()
        .enumerate()
        .filter_map(|(index, plan)| match plan {
            Some((format, _, size, true)) => Some(jobs::Job { index, format: *format, size: *size, role: roles[index] }),
            _ => None,
        })
        .collect();
    let mut outcomes: HashMap<usize, jobs::Outcome> = HashMap::with_capacity(jobs.len());
    for (job, outcome) in jobs.iter().zip(jobs::run(&model.images, &jobs, options.mode)) {
        outcomes.insert(job.index, outcome?);
    }
    // Images whose pixels another image holds take that image's encoding, once all are done.
    let mut encodings: HashMap<usize, Encoded> = HashMap::with_capacity(outcomes.len());
    let mut copies: Vec<(usize, usize)> = Vec::new();
    for (index, outcome) in outcomes {
        match outcome {
            jobs::Outcome::Encoded(encoded) => {
                encodings.insert(index, encoded);
            }
            jobs::Outcome::SameAs(first) => copies.push((index, first)),
        }
    }
    for (index, first) in copies {
        let same = &encodings[&first];
        let copy = Encoded { data: same.data.clone(), mime_type: same.mime_type.clone() };
        encodings.insert(index, copy);
    }
    let mut reports = Vec::with_capacity(model.images.len());
    for (index, plan) in plans.into_iter().enumerate() {
        let role = roles[index];
        let before_bytes = model.images[index].data.len();
        let before_format = short_format(&model.images[index].mime_type).to_string();
        let mut report = json!({ "image": index, "role": role.name(), "format_before": before_format, "bytes_before": before_bytes });
        if let Some(name) = &model.images[index].name {
            report["name"] = json!(name);
        }
        let Some((_, (width, height), (to_width, to_height), _)) = plan else {
            report["format"] = json!(before_format);
            report["bytes"] = json!(before_bytes);
            if !untouched {
                report["note"] = json!("not PNG or JPEG: kept as it is");
            }
            reports.push(report);
            continue;
        };
        report["size_before"] = json!([width, height]);
        report["size"] = json!([to_width, to_height]);
        if let Some(encoded) = encodings.remove(&index) {
            model.images[index].data = encoded.data;
            model.images[index].mime_type = encoded.mime_type;
            if let Some(extension) = options.mode.extension() {
                move_to_extension(&mut model.textures, index, extension);
            }
        }
        report["format"] = json!(short_format(&model.images[index].mime_type));
        report["bytes"] = json!(model.images[index].data.len());
        reports.push(report);
    }
    Ok(reports)
}
