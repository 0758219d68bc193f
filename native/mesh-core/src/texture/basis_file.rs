//! The parts of a Basis Universal `.basis` file (the encoder's output) that a KTX2 container
//! holds: codebooks and Huffman tables for ETC1S, and the compressed slices of each mip level.
//! Also the way back (a `.basis` file from those parts), for decoding KTX2 with the transcoder.
//! Layout from basisu_file_headers.h: packed little-endian integers of 1 to 4 bytes.
use crate::error::{MeshError, Result};

const HEADER_SIZE: usize = 77;
const SLICE_DESC_SIZE: usize = 23;
const SIGNATURE: u16 = u16::from_le_bytes(*b"sB");
const VERSION: u16 = 0x13;
pub const FLAG_ETC1S: u16 = 1;
pub const FLAG_HAS_ALPHA_SLICES: u16 = 4;
const SLICE_IS_ALPHA: u8 = 1;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slice {
    pub level: u8,
    pub alpha: bool,
    pub width: u16,
    pub height: u16,
    pub data: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BasisFile {
    pub uastc: bool,
    pub has_alpha: bool,
    pub endpoint_count: u16,
    pub selector_count: u16,
    pub endpoints: Vec<u8>,
    pub selectors: Vec<u8>,
    pub tables: Vec<u8>,
    pub extended: Vec<u8>,
    /// Slices of image 0, level by level from the largest; an alpha slice follows its colour slice.
    pub slices: Vec<Slice>,
}

fn corrupt(what: &str) -> MeshError {
    MeshError::invalid(format!("Basis Universal data is corrupt: {what}"))
}

fn uint(bytes: &[u8], at: usize, len: usize) -> Result<usize> {
    let field = bytes.get(at..at + len).ok_or_else(|| corrupt("truncated header"))?;
    Ok(field.iter().rev().fold(0usize, |v, &b| (v << 8) | usize::from(b)))
}

fn range(bytes: &[u8], offset: usize, len: usize) -> Result<Vec<u8>> {
    offset.checked_add(len).and_then(|end| bytes.get(offset..end)).map(<[u8]>::to_vec).ok_or_else(|| corrupt("a section lies outside the file"))
}

fn put(out: &mut Vec<u8>, value: usize, len: usize) {
    out.extend_from_slice(&value.to_le_bytes()[..len]);
}

/// CRC-16 as basisu computes it (CCITT polynomial, inverted in and out).
fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = !0;
    for &byte in bytes {
        let q = u16::from(byte) ^ (crc >> 8);
        let k = (q >> 4) ^ q;
        crc = (crc << 8) ^ k ^ (k << 5) ^ (k << 12);
    }
    !crc
}

impl BasisFile {
    pub fn parse(bytes: &[u8]) -> Result<BasisFile> {
        if uint(bytes, 0, 2)? != usize::from(SIGNATURE) || uint(bytes, 4, 2)? != HEADER_SIZE {
            return Err(corrupt("not a .basis file"));
        }
        let slice_count = uint(bytes, 14, 3)?;
        let flags = uint(bytes, 21, 2)? as u16;
        let slice_descs = uint(bytes, 65, 4)?;
        let mut slices = Vec::with_capacity(slice_count);
        for i in 0..slice_count {
            let at = slice_descs + i * SLICE_DESC_SIZE;
            if uint(bytes, at, 3)? != 0 {
                continue;
            }
            slices.push(Slice {
                level: uint(bytes, at + 3, 1)? as u8,
                alpha: uint(bytes, at + 4, 1)? as u8 & SLICE_IS_ALPHA != 0,
                width: uint(bytes, at + 5, 2)? as u16,
                height: uint(bytes, at + 7, 2)? as u16,
                data: range(bytes, uint(bytes, at + 13, 4)?, uint(bytes, at + 17, 4)?)?,
            });
        }
        Ok(BasisFile {
            uastc: uint(bytes, 20, 1)? == 1,
            has_alpha: flags & FLAG_HAS_ALPHA_SLICES != 0,
            endpoint_count: uint(bytes, 39, 2)? as u16,
            endpoints: range(bytes, uint(bytes, 41, 4)?, uint(bytes, 45, 3)?)?,
            selector_count: uint(bytes, 48, 2)? as u16,
            selectors: range(bytes, uint(bytes, 50, 4)?, uint(bytes, 54, 3)?)?,
            tables: range(bytes, uint(bytes, 57, 4)?, uint(bytes, 61, 4)?)?,
            extended: range(bytes, uint(bytes, 69, 4)?, uint(bytes, 73, 4)?)?,
            slices,
        })
    }

    pub fn levels(&self) -> usize {
        self.slices.iter().map(|s| usize::from(s.level) + 1).max().unwrap_or(0)
    }

    /// The colour slice and the alpha slice (if any) of `level`.
    pub fn level(&self, level: usize) -> (Option<&Slice>, Option<&Slice>) {
        let of = |alpha: bool| self.slices.iter().find(|s| usize::from(s.level) == level && s.alpha == alpha);
        (of(false), of(true))
    }

    /// The `.basis` file holding these parts, as the transcoder reads it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut data = Vec::new();
        let mut place = |section: &[u8]| {
            let at = HEADER_SIZE + self.slices.len() * SLICE_DESC_SIZE + data.len();
            data.extend_from_slice(section);
            at
        };
        let endpoints_at = place(&self.endpoints);
        let selectors_at = place(&self.selectors);
        let tables_at = place(&self.tables);
        let extended_at = place(&self.extended);
        let slices_at: Vec<usize> = self.slices.iter().map(|s| place(&s.data)).collect();
        let mut descs = Vec::with_capacity(self.slices.len() * SLICE_DESC_SIZE);
        for (slice, at) in self.slices.iter().zip(slices_at) {
            put(&mut descs, 0, 3);
            put(&mut descs, usize::from(slice.level), 1);
            put(&mut descs, usize::from(slice.alpha), 1);
            put(&mut descs, usize::from(slice.width), 2);
            put(&mut descs, usize::from(slice.height), 2);
            put(&mut descs, usize::from(slice.width).div_ceil(4), 2);
            put(&mut descs, usize::from(slice.height).div_ceil(4), 2);
            put(&mut descs, at, 4);
            put(&mut descs, slice.data.len(), 4);
            put(&mut descs, usize::from(crc16(&slice.data)), 2);
        }
        let body: Vec<u8> = descs.into_iter().chain(data).collect();
        let mut flags = if self.uastc { 0 } else { FLAG_ETC1S };
        if self.has_alpha && !self.uastc {
            flags |= FLAG_HAS_ALPHA_SLICES;
        }
        let mut header = Vec::with_capacity(HEADER_SIZE);
        put(&mut header, usize::from(SIGNATURE), 2);
        put(&mut header, usize::from(VERSION), 2);
        put(&mut header, HEADER_SIZE, 2);
        put(&mut header, 0, 2);
        put(&mut header, body.len(), 4);
        put(&mut header, usize::from(crc16(&body)), 2);
        put(&mut header, self.slices.len(), 3);
        put(&mut header, 1, 3);
        put(&mut header, usize::from(self.uastc), 1);
        put(&mut header, usize::from(flags), 2);
        // texture type 2D, no video frame rate, reserved and user data
        header.extend_from_slice(&[0; 1 + 3 + 4 + 4 + 4]);
        put(&mut header, usize::from(self.endpoint_count), 2);
        put(&mut header, endpoints_at, 4);
        put(&mut header, self.endpoints.len(), 3);
        put(&mut header, usize::from(self.selector_count), 2);
        put(&mut header, selectors_at, 4);
        put(&mut header, self.selectors.len(), 3);
        put(&mut header, tables_at, 4);
        put(&mut header, self.tables.len(), 4);
        put(&mut header, HEADER_SIZE, 4);
        put(&mut header, extended_at, 4);
        put(&mut header, self.extended.len(), 4);
        let header_crc = crc16(&header[8..]);
        header[6..8].copy_from_slice(&header_crc.to_le_bytes());
        header.extend(body);
        header
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_survive_a_round_trip_through_bytes() {
        let file = BasisFile {
            uastc: false,
            has_alpha: true,
            endpoint_count: 3,
            selector_count: 2,
            endpoints: vec![1, 2, 3],
            selectors: vec![4, 5],
            tables: vec![6; 10],
            extended: vec![],
            slices: vec![
                Slice { level: 0, alpha: false, width: 8, height: 4, data: vec![7; 5] },
                Slice { level: 0, alpha: true, width: 8, height: 4, data: vec![8; 3] },
                Slice { level: 1, alpha: false, width: 4, height: 2, data: vec![9] },
            ],
        };
        let bytes = file.to_bytes();
        assert_eq!(BasisFile::parse(&bytes).unwrap(), file);
        assert_eq!(file.levels(), 2);
        assert_eq!(file.level(1).0.map(|s| s.data.clone()), Some(vec![9]));
    }

    #[test]
    fn the_crc_matches_basisu() {
        // CRC-16/GENIBUS of "123456789", which is what basisu's inverted CCITT variant computes.
        assert_eq!(crc16(b"123456789"), 0xD64E);
    }
}
