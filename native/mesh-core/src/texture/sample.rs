//! A sample of a large image for choosing encoder settings: whole tiles spread evenly over the
//! image, side by side in a square-ish mosaic. Trial encodings of the sample cost a fraction of
//! one of the whole image, and land close to it on PSNR and on bytes per pixel, since the tiles
//! carry the image's mix of content.

/// Images up to this many pixels are searched whole; larger ones on a sample.
pub const WHOLE_UP_TO: usize = 512 * 512;
/// Side of the square tiles a sample is made of: a multiple of WebP's 16-pixel macroblocks and of
/// Basis Universal's 4-pixel blocks.
const TILE: usize = 64;

/// Up to `pixels` of the image: tiles spread evenly over it, side by side in a square-ish mosaic,
/// or `None` when the image is small enough to be searched whole (`WHOLE_UP_TO`).
pub fn sample(rgba: &[u8], width: usize, height: usize, pixels: usize) -> Option<(Vec<u8>, usize, usize)> {
    let (across, down) = (width / TILE, height / TILE);
    if width * height <= WHOLE_UP_TO || across * down == 0 {
        return None;
    }
    let wanted = (pixels / (TILE * TILE)).clamp(1, across * down);
    let step = (across * down) as f64 / wanted as f64;
    let columns = (wanted as f64).sqrt().ceil() as usize;
    let rows = wanted.div_ceil(columns);
    let (sample_width, sample_height) = (columns * TILE, rows * TILE);
    let mut out = vec![0u8; sample_width * sample_height * 4];
    for n in 0..wanted {
        let tile = ((n as f64 + 0.5) * step) as usize;
        let (tx, ty) = (tile % across, tile / across);
        let (ox, oy) = ((n % columns) * TILE, (n / columns) * TILE);
        for row in 0..TILE {
            let from = ((ty * TILE + row) * width + tx * TILE) * 4;
            let to = ((oy + row) * sample_width + ox) * 4;
            out[to..to + TILE * 4].copy_from_slice(&rgba[from..from + TILE * 4]);
        }
    }
    // Unfilled tiles of the last mosaic row repeat the first tile rather than stay black.
    for n in wanted..columns * rows {
        let (ox, oy) = ((n % columns) * TILE, (n / columns) * TILE);
        for row in 0..TILE {
            let from = row * sample_width * 4;
            let to = ((oy + row) * sample_width + ox) * 4;
            out.copy_within(from..from + TILE * 4, to);
        }
    }
    Some((out, sample_width, sample_height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_takes_whole_tiles_from_all_over_the_image() {
        // Each pixel holds its tile's coordinates, so the sample shows where its tiles came from.
        let size = 2048;
        let mut rgba = vec![0u8; size * size * 4];
        for y in 0..size {
            for x in 0..size {
                rgba[(y * size + x) * 4..][..4].copy_from_slice(&[(x / TILE) as u8, (y / TILE) as u8, 0, 255]);
            }
        }
        let (pixels, width, height) = sample(&rgba, size, size, WHOLE_UP_TO).unwrap();
        assert_eq!(width * height, WHOLE_UP_TO);
        let rows: std::collections::BTreeSet<u8> = pixels.chunks_exact(4).map(|p| p[1]).collect();
        assert!(rows.len() >= 16, "tiles from {} of 32 tile rows", rows.len());
        for tile in pixels.chunks_exact(4 * TILE).step_by(1) {
            assert!(tile.chunks_exact(4).all(|p| p[..2] == tile[..2]), "a tile row mixes tiles");
        }
    }
}
