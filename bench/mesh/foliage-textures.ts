// Texture content that no encoder setting was tuned on, for the texture bench: a foliage card, the
// kind of texture that carries an alpha channel. The colour map holds leaves (ellipses with a
// midrib and side veins, each its own shade of green or autumn yellow) on a fully transparent
// background, with a soft one-pixel alpha ramp at their edges; the normal map domes each leaf and
// grooves its veins; the ORM map varies roughness along each leaf. Alpha exercises WebP's alpha
// plane and ETC1S's alpha slices, which the other bench inputs (all opaque) never reach.
import { normalTexel, type TexturedImages } from '../../test/mesh/textures-model.ts'

/** A seeded integer hash in [0, 1). */
function hash(a: number, b: number, seed: number): number {
  let h = (a * 374761393 + b * 668265263 + seed * 2246822519) | 0
  h = Math.imul(h ^ (h >>> 13), 1274126177)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

interface Leaf {
  cx: number
  cy: number
  /** Half length and half width in pixels. */
  a: number
  b: number
  angle: number
  rgb: [number, number, number]
}

function leaves(size: number): Leaf[] {
  const out: Leaf[] = []
  const count = 40
  for (let i = 0; i < count; i++) {
    const autumn = hash(i, 4, 3) < 0.25
    const shade = 0.6 + 0.4 * hash(i, 5, 3)
    out.push({
      cx: size * hash(i, 0, 3),
      cy: size * hash(i, 1, 3),
      a: size * (0.06 + 0.06 * hash(i, 2, 3)),
      b: size * (0.025 + 0.02 * hash(i, 6, 3)),
      angle: Math.PI * 2 * hash(i, 3, 3),
      rgb: autumn ? [210 * shade, 170 * shade, 40 * shade] : [60 * shade, 140 * shade, 50 * shade],
    })
  }
  return out
}

export function foliageTexturePixels(size: number): TexturedImages {
  const n = size * size
  const color = new Uint8Array(n * 4)
  const normal = new Uint8Array(n * 4)
  const orm = new Uint8Array(n * 4)
  for (let i = 0; i < n; i++) {
    normal.set([128, 128, 255, 255], i * 4)
    orm.set([255, 200, 0, 255], i * 4)
  }
  // Later leaves lie over earlier ones.
  for (const leaf of leaves(size)) {
    const cos = Math.cos(leaf.angle)
    const sin = Math.sin(leaf.angle)
    const reach = Math.ceil(leaf.a) + 2
    for (let y = Math.max(0, Math.floor(leaf.cy - reach)); y < Math.min(size, leaf.cy + reach); y++) {
      for (let x = Math.max(0, Math.floor(leaf.cx - reach)); x < Math.min(size, leaf.cx + reach); x++) {
        // Along the leaf (u) and across it (v), both in [-1, 1] inside.
        const dx = x - leaf.cx
        const dy = y - leaf.cy
        const u = (dx * cos + dy * sin) / leaf.a
        const v = (-dx * sin + dy * cos) / leaf.b
        const r = Math.hypot(u, v)
        // Distance to the edge in pixels, roughly: alpha ramps over one pixel.
        const edge = (1 - r) * leaf.b
        if (edge <= -0.5) continue
        const alpha = Math.min(1, edge + 0.5)
        const i = y * size + x
        const midrib = Math.abs(v) * leaf.b < 1.2
        const vein = Math.abs(((u * 4 + Math.abs(v) * 1.5) % 1) - 0.5) < 0.06
        const light = (midrib ? 1.25 : vein ? 1.12 : 1) * (0.85 + 0.15 * (1 - Math.abs(v)))
        const rgb = leaf.rgb.map((c) => Math.min(255, Math.round(c * light)))
        color.set([...rgb, Math.round(255 * alpha)], i * 4)
        // A dome: the normal leans out from the leaf's centre line, and into the veins.
        const lean = 0.5 * v + (vein ? 0.3 : 0)
        const nx = -lean * sin
        const ny = lean * cos
        normal.set(normalTexel(nx, ny), i * 4)
        orm.set([255, Math.round(120 + 100 * Math.abs(u)), 0, 255], i * 4)
      }
    }
  }
  return { color, normal, orm }
}
