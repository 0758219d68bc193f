//! optimize_3d_model's textures on a generated model (colour noise over gradients, a normal map,
//! an ORM map, a pixel-identical copy of the colour image and an unused image): WebP and KTX2
//! outputs decode to within a PSNR floor of their sources, KTX2 containers read back with the
//! `ktx2` crate as ETC1S for colour and UASTC for data with full mip chains, duplicates merge,
//! max_texture_size holds, and the per-texture byte report adds up.
#![cfg(feature = "textures")]
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};
use mesh_core::model::{Image, Mesh, Model, Primitive, SourceFormat};
use mesh_core::read::{read_model, ReadOptions};
use mesh_core::texture::compare::compare_textures;
use mesh_core::tools::{optimize, Input};
use mesh_core::write::{write_glb, GlbOptions};
use serde_json::{json, Value};

const SIZE: u32 = 256;

fn hash(x: u32, y: u32, seed: u32) -> f32 {
    let mut h = x.wrapping_mul(374_761_393) ^ y.wrapping_mul(668_265_263) ^ seed.wrapping_mul(2_246_822_519);
    h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
    (h ^ (h >> 16)) as f32 / u32::MAX as f32
}

/// Smooth value noise summed over octaves from 32 pixels down to 2.
fn noise(x: u32, y: u32, seed: u32) -> f32 {
    let mut sum = 0.0;
    let mut weight = 0.5;
    let mut cell = 32;
    while cell >= 2 {
        let (fx, fy) = (x as f32 / cell as f32, y as f32 / cell as f32);
        let (ix, iy) = (fx.floor() as u32, fy.floor() as u32);
        let (sx, sy) = (fx.fract(), fy.fract());
        let top = hash(ix, iy, seed) * (1.0 - sx) + hash(ix + 1, iy, seed) * sx;
        let bottom = hash(ix, iy + 1, seed) * (1.0 - sx) + hash(ix + 1, iy + 1, seed) * sx;
        sum += (top * (1.0 - sy) + bottom * sy) * weight;
        weight *= 0.6;
        cell /= 2;
    }
    sum
}

fn pixels(f: impl Fn(u32, u32) -> [f32; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let [r, g, b] = f(x, y);
            out.extend([r, g, b].map(|v| (v * 255.0).clamp(0.0, 255.0) as u8));
            out.push(255);
        }
    }
    out
}

fn png(rgba: &[u8], compression: CompressionType) -> Image {
    let mut data = Vec::new();
    PngEncoder::new_with_quality(&mut data, compression, FilterType::Adaptive).write_image(rgba, SIZE, SIZE, ExtendedColorType::Rgba8).unwrap();
    Image { name: None, mime_type: "image/png".into(), data }
}

fn textured_glb() -> Vec<u8> {
    let color = pixels(|x, y| {
        let (gx, gy) = (x as f32 / SIZE as f32, y as f32 / SIZE as f32);
        [(0.2 + 0.6 * gx) * (0.5 + noise(x, y, 1)), (0.3 + 0.4 * gy) * (0.4 + noise(x, y, 2)), 0.6 - 0.4 * gx * gy]
    });
    let normal = pixels(|x, y| {
        let dx = (noise(x + 1, y, 3) - noise(x.saturating_sub(1), y, 3)) * 4.0;
        let dy = (noise(x, y + 1, 3) - noise(x, y.saturating_sub(1), 3)) * 4.0;
        let len = (dx * dx + dy * dy + 1.0).sqrt();
        [0.5 - 0.5 * dx / len, 0.5 - 0.5 * dy / len, 0.5 + 0.5 / len]
    });
    let orm = pixels(|x, y| [0.4 + 0.6 * noise(x, y, 3), noise(x, y, 4), if (x / 32 + y / 32) % 2 == 0 { 1.0 } else { 0.0 }]);
    let mut model = Model::new(SourceFormat::Glb);
    let quad = |material| Primitive {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        attributes: vec![mesh_core::model::Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: vec![0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0] }],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(material),
        variant_materials: Vec::new(),
    };
    model.push_root_mesh(Mesh { name: None, primitives: vec![quad(0), quad(1)], ..Default::default() });
    let material = |base: usize| json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": base }, "metallicRoughnessTexture": { "index": 2 } }, "normalTexture": { "index": 1 }, "occlusionTexture": { "index": 2 } });
    model.materials = vec![material(0), material(3)];
    model.textures = (0..4).map(|i| json!({ "source": i })).collect();
    let mut unused = Vec::new();
    PngEncoder::new(&mut unused).write_image(&orm[..16], 2, 2, ExtendedColorType::Rgba8).unwrap();
    let unused = Image { name: None, mime_type: "image/png".into(), data: unused };
    model.images = vec![
        png(&color, CompressionType::Default),
        png(&normal, CompressionType::Default),
        png(&orm, CompressionType::Default),
        png(&color, CompressionType::Fast),
        unused,
    ];
    write_glb(&model, &GlbOptions::default())
}

fn optimize(glb: &[u8], textures: &str, max_texture_size: Option<u32>) -> (Value, Vec<u8>) {
    let input = Input { data: glb, name: "textured.glb", extension: "glb", read: ReadOptions::default() };
    let options = json!({ "max_faces": 1000, "compress": true, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 1.0, "remove_debris": 0.0, "textures": textures, "max_texture_size": max_texture_size, "keep_nodes": false, "instancing": false });
    let result = optimize::run(&input, &options).unwrap();
    (result.summary, result.files.into_iter().next().unwrap().data)
}

fn read(glb: &[u8]) -> Model {
    read_model(glb, "glb", &ReadOptions::default()).unwrap()
}

fn psnr_by_source(source: &[u8], output: &[u8]) -> Vec<(usize, f64)> {
    compare_textures(&read(source), &read(output))
        .unwrap()
        .iter()
        .map(|r| (r["source_image"].as_u64().unwrap() as usize, r["psnr"].as_f64().unwrap()))
        .collect()
}

#[test]
fn webp_output_is_close_to_its_sources_and_merges_the_duplicate() {
    let glb = textured_glb();
    let (summary, out) = optimize(&glb, "webp", None);
    let model = read(&out);
    assert_eq!(model.images.len(), 3, "colour, normal and ORM; the copy merged and the unused image dropped");
    assert!(model.images.iter().all(|i| i.mime_type == "image/webp"));
    assert!(model.textures.iter().all(|t| t.get("source").is_none() && t["extensions"]["EXT_texture_webp"]["source"].is_u64()));
    let json = model.gltf_json.unwrap();
    assert_eq!(json["extensionsRequired"], json!(["EXT_meshopt_compression", "EXT_texture_webp", "KHR_mesh_quantization", "KHR_texture_transform"]));
    // The ORM map's metalness is a hard checkerboard, which WebP's half-resolution chroma blurs.
    // Each texture is at least as close as libwebp at gltfpack's settings (unit tests in
    // webp_encode.rs), which puts this normal map at 33.7 dB and this ORM map at 27.0 dB.
    let floors = [34.0, 33.0, 26.5];
    for (source, psnr) in psnr_by_source(&glb, &out) {
        assert!(psnr > floors[source.min(2)], "image {source}: {psnr} dB");
    }
    let report = summary["textures"].as_array().unwrap();
    assert_eq!(report.len(), 4, "one row per image still used after pruning");
    assert_eq!(report[0]["role"], "color");
    assert_eq!(report[1]["role"], "normal");
    assert_eq!(report[2]["role"], "data");
    for row in report {
        assert_eq!(row["format"], "webp");
        assert!(row["bytes"].as_u64().unwrap() < row["bytes_before"].as_u64().unwrap() / 2, "{row}");
    }
}

#[test]
fn ktx2_output_is_etc1s_for_colour_and_uastc_for_data_with_full_mip_chains() {
    let glb = textured_glb();
    let (_, out) = optimize(&glb, "ktx2", None);
    let model = read(&out);
    assert_eq!(model.images.len(), 3);
    for (image, expected) in model.images.iter().zip([ktx2::ColorModel::ETC1S, ktx2::ColorModel::UASTC, ktx2::ColorModel::UASTC]) {
        let reader = ktx2::Reader::new(&image.data).unwrap();
        assert_eq!(reader.color_model(), Some(expected));
        assert_eq!(reader.header().level_count, 9, "256 down to 1");
        assert_eq!(reader.header().pixel_width, SIZE);
    }
    let floors = [30.0, 38.0, 38.0];
    for (source, psnr) in psnr_by_source(&glb, &out) {
        assert!(psnr > floors[source.min(2)], "image {source}: {psnr} dB");
    }
}

#[test]
fn max_texture_size_scales_power_of_two_textures_to_a_power_of_two() {
    let glb = textured_glb();
    let (summary, out) = optimize(&glb, "keep", Some(100));
    let model = read(&out);
    for image in &model.images {
        assert_eq!(image.mime_type, "image/png");
        let decoded = image::load_from_memory(&image.data).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (64, 64));
    }
    assert_eq!(summary["textures"][0]["size"], json!([64, 64]));
    assert_eq!(summary["textures"][0]["size_before"], json!([256, 256]));
}
