//! Glyph id → Unicode from an embedded TrueType program's `cmap` table, inverted. It rescues
//! CID TrueType fonts that come without a ToUnicode CMap (common in CJK files).

use rustc_hash::FxHashMap;

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *data.get(at)?,
        *data.get(at + 1)?,
        *data.get(at + 2)?,
        *data.get(at + 3)?,
    ]))
}

/// Bound on mapped characters, so a hostile format 12 group cannot loop over 4 billion codes.
const MAX_MAPPINGS: usize = 1 << 17;

pub fn glyph_unicode_map(font: &[u8]) -> Option<FxHashMap<u16, char>> {
    let tables = u16_at(font, 4)? as usize;
    let cmap = (0..tables).find_map(|i| {
        let record = 12 + i * 16;
        (font.get(record..record + 4)? == b"cmap")
            .then(|| u32_at(font, record + 8))
            .flatten()
    })? as usize;
    let subtables = u16_at(font, cmap + 2)? as usize;
    let mut best: Option<(u8, usize)> = None;
    for i in 0..subtables {
        let record = cmap + 4 + i * 8;
        let (platform, encoding) = (u16_at(font, record)?, u16_at(font, record + 2)?);
        let rank = match (platform, encoding) {
            (3, 10) => 3,
            (3, 1) => 2,
            (0, _) => 1,
            _ => continue,
        };
        if best.is_none_or(|(r, _)| rank > r) {
            best = Some((rank, cmap + u32_at(font, record + 4)? as usize));
        }
    }
    let (_, subtable) = best?;
    let mut map = FxHashMap::default();
    let mut add = |code: u32, glyph: u32| {
        if let (Some(ch), Ok(glyph)) = (char::from_u32(code), u16::try_from(glyph)) {
            if glyph != 0 && map.len() < MAX_MAPPINGS {
                map.entry(glyph).or_insert(ch);
            }
        }
    };
    match u16_at(font, subtable)? {
        4 => {
            let segments = u16_at(font, subtable + 6)? as usize / 2;
            let ends = subtable + 14;
            let starts = ends + segments * 2 + 2;
            let deltas = starts + segments * 2;
            let range_offsets = deltas + segments * 2;
            for s in 0..segments {
                let (start, end) = (u16_at(font, starts + s * 2)?, u16_at(font, ends + s * 2)?);
                let delta = u16_at(font, deltas + s * 2)?;
                let range_offset = u16_at(font, range_offsets + s * 2)? as usize;
                for code in start..=end.min(0xFFFE) {
                    let glyph = if range_offset == 0 {
                        code.wrapping_add(delta)
                    } else {
                        let at = range_offsets + s * 2 + range_offset + (code - start) as usize * 2;
                        match u16_at(font, at) {
                            Some(0) | None => 0,
                            Some(glyph) => glyph.wrapping_add(delta),
                        }
                    };
                    add(u32::from(code), u32::from(glyph));
                }
            }
        }
        12 => {
            let groups = u32_at(font, subtable + 12)? as usize;
            for g in 0..groups.min(MAX_MAPPINGS) {
                let at = subtable + 16 + g * 12;
                let (start, end, glyph) = (
                    u32_at(font, at)?,
                    u32_at(font, at + 4)?,
                    u32_at(font, at + 8)?,
                );
                for code in start..=end.min(start.saturating_add(MAX_MAPPINGS as u32)) {
                    add(code, glyph + (code - start));
                }
            }
        }
        _ => return None,
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverts_a_format_4_cmap_and_survives_truncation() {
        // One table (cmap) holding one (3,1) format 4 subtable: 'A'..'C' → glyphs 1..3, then the end segment.
        let mut font = vec![0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        font.extend_from_slice(b"cmap");
        font.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 28, 0, 0, 0, 0]);
        font.extend_from_slice(&[0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12]);
        font.extend_from_slice(&[0, 4, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0]);
        font.extend_from_slice(&[
            0, 0x43, 0xFF, 0xFF, 0, 0, 0, 0x41, 0xFF, 0xFF, 0xFF, 0xC0, 0, 1, 0, 0, 0, 0,
        ]);
        let map = glyph_unicode_map(&font).expect("cmap found");
        assert_eq!((map.get(&1), map.get(&3)), (Some(&'A'), Some(&'C')));
        for length in 0..font.len() {
            let _ = glyph_unicode_map(&font[..length]);
        }
    }
}
