// Texture content with hard edges, beside the smooth noise of textures-model.ts, so the texture
// bench also measures what encoders were not tuned on: a colour map of text-like glyphs in a few
// inks on paper, a normal map of panels with grooves between them, and an ORM map whose
// roughness and metalness change per panel (flat areas, one-pixel steps).
import { normalTexel, type TexturedImages } from './textures-model.ts'

/** A seeded integer hash in [0, 1). */
function hash(a: number, b: number, seed: number): number {
  let h = (a * 374761393 + b * 668265263 + seed * 2246822519) | 0
  h = Math.imul(h ^ (h >>> 13), 1274126177)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

export function sharpTexturePixels(size: number): TexturedImages {
  const n = size * size
  const color = new Uint8Array(n * 4)
  const normal = new Uint8Array(n * 4)
  const orm = new Uint8Array(n * 4)
  // Glyphs are 5 x 7 dot bitmaps, one dot `dot` pixels wide, with a dot of space around.
  const dot = Math.max(1, Math.round(size / 256))
  const glyphWidth = 6 * dot
  const lineHeight = 10 * dot
  const inks = [
    [20, 20, 24],
    [170, 30, 30],
    [25, 50, 150],
  ]
  const panel = Math.max(8, size / 8)
  const groove = Math.max(2, Math.round(size / 256))
  for (let y = 0; y < size; y++) {
    const line = Math.floor(y / lineHeight)
    const row = Math.floor((y % lineHeight) / dot)
    const ink = inks[line % inks.length]!
    for (let x = 0; x < size; x++) {
      const i = y * size + x
      const glyph = Math.floor(x / glyphWidth)
      const column = Math.floor((x % glyphWidth) / dot)
      // Every seventh glyph is a space, as between words.
      const on =
        row < 7 && column < 5 && glyph % 7 !== 6 && hash(glyph * 35 + row * 5 + column, line, 5) < 0.45
      const paper = 235 - (20 * y) / size
      color.set(on ? [...ink, 255] : [paper, paper - 6, paper - 18, 255], i * 4)
      // Panels: flat tops, and grooves whose walls tilt the normal left, right, up or down.
      const px = x % panel
      const py = y % panel
      let nx = 0
      let ny = 0
      if (px < groove) nx = -0.6
      else if (px >= panel - groove) nx = 0.6
      if (py < groove) ny = -0.6
      else if (py >= panel - groove) ny = 0.6
      normal.set(normalTexel(nx, ny), i * 4)
      const cell = Math.floor(x / panel) * 97 + Math.floor(y / panel)
      const inGroove = nx !== 0 || ny !== 0
      orm.set(
        [inGroove ? 80 : 255, Math.round(255 * hash(cell, 1, 9)), hash(cell, 2, 9) < 0.5 ? 0 : 255, 255],
        i * 4,
      )
    }
  }
  return { color, normal, orm }
}
