//! KTX2 (KHR_texture_basisu) back to RGBA pixels: the container is read with the `ktx2` crate,
//! turned back into a `.basis` file and decoded by the Basis Universal transcoder. Used to measure
//! what a viewer would show (PSNR against the source) for our output and for gltfpack's.
use super::basis_file::{BasisFile, Slice};
use crate::error::{MeshError, Result};
use basis_universal::{TranscodeParameters, Transcoder, TranscoderTextureFormat};
use image::RgbaImage;
use ktx2::{ColorModel, Reader, SupercompressionScheme};

fn corrupt(what: impl std::fmt::Display) -> MeshError {
    MeshError::invalid(format!("KTX2 image cannot be read: {what}"))
}

fn u16_at(b: &[u8], at: usize) -> Result<u16> {
    b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]])).ok_or_else(|| corrupt("short global data"))
}

fn u32_at(b: &[u8], at: usize) -> Result<usize> {
    b.get(at..at + 4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize).ok_or_else(|| corrupt("short global data"))
}

fn part(bytes: &[u8], at: usize, len: usize) -> Result<Vec<u8>> {
    bytes.get(at..at + len).map(<[u8]>::to_vec).ok_or_else(|| corrupt("a slice lies outside its level"))
}

fn level_size(size: u32, level: usize) -> u16 {
    (size >> level).max(1) as u16
}

/// The `.basis` parts of level 0 (and its mips) held by a KTX2 file.
pub fn basis_of_ktx2(data: &[u8]) -> Result<(BasisFile, u32, u32)> {
    let reader = Reader::new(data).map_err(corrupt)?;
    let header = reader.header();
    let dfd = reader.basic_dfd().ok_or_else(|| corrupt("no data format descriptor"))?;
    let (width, height) = (header.pixel_width, header.pixel_height);
    let mut basis = BasisFile::default();
    match dfd.color_model {
        Some(ColorModel::UASTC) => {
            basis.uastc = true;
            basis.has_alpha = dfd.sample_information.first().is_some_and(|s| s.channel_type == 3);
            for (level, stored) in reader.levels().enumerate() {
                let raw = match header.supercompression_scheme {
                    Some(SupercompressionScheme::Zstandard) => {
                        zstd::bulk::decompress(stored.data, stored.uncompressed_byte_length as usize).map_err(corrupt)?
                    }
                    None => stored.data.to_vec(),
                    Some(other) => return Err(corrupt(format!("supercompression {other:?} on UASTC"))),
                };
                basis.slices.push(Slice { level: level as u8, alpha: false, width: level_size(width, level), height: level_size(height, level), data: raw });
            }
        }
        Some(ColorModel::ETC1S) => {
            let sgd = reader.supercompression_global_data();
            basis.endpoint_count = u16_at(sgd, 0)?;
            basis.selector_count = u16_at(sgd, 2)?;
            let lengths = [u32_at(sgd, 4)?, u32_at(sgd, 8)?, u32_at(sgd, 12)?, u32_at(sgd, 16)?];
            let levels: Vec<_> = reader.levels().collect();
            let mut at = 20 + levels.len() * 20;
            let mut sections = Vec::new();
            for len in lengths {
                sections.push(part(sgd, at, len)?);
                at += len;
            }
            [basis.endpoints, basis.selectors, basis.tables, basis.extended] = sections.try_into().map_err(|_| corrupt("global data"))?;
            for (level, stored) in levels.iter().enumerate() {
                let desc = 20 + level * 20;
                let (w, h) = (level_size(width, level), level_size(height, level));
                let rgb = part(stored.data, u32_at(sgd, desc + 4)?, u32_at(sgd, desc + 8)?)?;
                basis.slices.push(Slice { level: level as u8, alpha: false, width: w, height: h, data: rgb });
                let alpha_len = u32_at(sgd, desc + 16)?;
                if alpha_len > 0 {
                    basis.has_alpha = true;
                    let alpha = part(stored.data, u32_at(sgd, desc + 12)?, alpha_len)?;
                    basis.slices.push(Slice { level: level as u8, alpha: true, width: w, height: h, data: alpha });
                }
            }
        }
        other => return Err(corrupt(format!("colour model {other:?} is not Basis Universal"))),
    }
    Ok((basis, width, height))
}

/// The largest level of a KTX2 Basis Universal image as RGBA pixels.
pub fn decode_ktx2_rgba(data: &[u8]) -> Result<RgbaImage> {
    let (basis, width, height) = basis_of_ktx2(data)?;
    decode_basis_rgba(&basis.to_bytes(), width, height)
}

/// The largest level of a `.basis` file (`width` x `height` pixels) as RGBA pixels.
pub fn decode_basis_rgba(file: &[u8], width: u32, height: u32) -> Result<RgbaImage> {
    let mut transcoder = Transcoder::new();
    transcoder.prepare_transcoding(file).map_err(|()| corrupt("the transcoder refused the data"))?;
    let pixels = transcoder
        .transcode_image_level(file, TranscoderTextureFormat::RGBA32, TranscodeParameters { image_index: 0, level_index: 0, ..Default::default() })
        .map_err(|e| corrupt(format!("{e:?}")))?;
    transcoder.end_transcoding();
    RgbaImage::from_raw(width, height, pixels).ok_or_else(|| corrupt("the transcoder returned the wrong size"))
}
