// How far a tool moved texture coordinates, in texels of the textures that sample them. The
// geometric error (geometry.ts) says nothing about UVs, and quantizing them is where two tools'
// bytes can part: a coarser UV grid stores smaller and shifts every texel it lands on. For each
// output vertex of a textured primitive, the source vertices at its place (within a ten-thousandth
// of the scene, so position quantization does not hide a match) are looked up, and the smallest
// distance between its coordinates and theirs is taken, set by set, as the material samples it
// (KHR_texture_transform applied, which both tools use to undo their UV quantization), in pixels
// of the largest image that set feeds. The largest over all vertices is the figure. Seams (one
// place, several UVs) take the nearest; a vertex without a source at its place is left out.
import type { Document, Material, Primitive, TextureInfo } from '@gltf-transform/core'
import { ImageUtils } from '@gltf-transform/core'
import type { Transform } from '@gltf-transform/extensions'
import { readDocument } from './geometry.ts'

/** One vertex of a textured primitive: its world position and, per UV set it feeds, the transformed coordinates and the texture size. */
interface Sampled {
  position: [number, number, number]
  sets: Map<number, { uv: [number, number]; size: [number, number] }>
}

type Slot = { info: TextureInfo | null; texture: ReturnType<Material['getBaseColorTexture']> }

function slots(material: Material): Slot[] {
  return [
    { info: material.getBaseColorTextureInfo(), texture: material.getBaseColorTexture() },
    { info: material.getNormalTextureInfo(), texture: material.getNormalTexture() },
    { info: material.getOcclusionTextureInfo(), texture: material.getOcclusionTexture() },
    { info: material.getEmissiveTextureInfo(), texture: material.getEmissiveTexture() },
    { info: material.getMetallicRoughnessTextureInfo(), texture: material.getMetallicRoughnessTexture() },
  ]
}

/** Per UV set a material samples: the texture transform (as a 2×3 matrix) and the largest image size. */
function setsOf(material: Material): Map<number, { matrix: number[]; size: [number, number] }> {
  const sets = new Map<number, { matrix: number[]; size: [number, number] }>()
  for (const { info, texture } of slots(material)) {
    if (!info || !texture) continue
    const size = ImageUtils.getSize(texture.getImage() ?? new Uint8Array(), texture.getMimeType())
    if (!size) continue
    const transform = info.getExtension<Transform>('KHR_texture_transform')
    const set = transform?.getTexCoord() ?? info.getTexCoord()
    const [ox, oy] = transform?.getOffset() ?? [0, 0]
    const [sx, sy] = transform?.getScale() ?? [1, 1]
    const r = transform?.getRotation() ?? 0
    const [c, s] = [Math.cos(r), Math.sin(r)]
    // Translation · rotation · scale, as the extension composes them.
    const matrix = [c * sx, s * sy, ox, -s * sx, c * sy, oy]
    const known = sets.get(set)
    if (!known || size[0] * size[1] > known.size[0] * known.size[1]) sets.set(set, { matrix, size })
  }
  return sets
}

/** Every vertex of the textured triangle primitives of the document's nodes, in world space. */
function sampledVertices(doc: Document): Sampled[] {
  const out: Sampled[] = []
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh()
    if (!mesh) continue
    const m = node.getWorldMatrix()
    for (const prim of mesh.listPrimitives() as Primitive[]) {
      const material = prim.getMaterial()
      const pos = prim.getAttribute('POSITION')
      if (!material || !pos || prim.getMode() !== 4) continue
      const sets = [...setsOf(material)].flatMap(([set, t]) => {
        const accessor = prim.getAttribute(`TEXCOORD_${set}`)
        return accessor ? [{ set, accessor, ...t }] : []
      })
      if (sets.length === 0) continue
      const v = [0, 0, 0]
      const uv = [0, 0]
      for (let i = 0; i < pos.getCount(); i++) {
        pos.getElement(i, v)
        const position: [number, number, number] = [
          m[0] * v[0]! + m[4] * v[1]! + m[8] * v[2]! + m[12],
          m[1] * v[0]! + m[5] * v[1]! + m[9] * v[2]! + m[13],
          m[2] * v[0]! + m[6] * v[1]! + m[10] * v[2]! + m[14],
        ]
        const sampled: Sampled = { position, sets: new Map() }
        for (const { set, accessor, matrix: t, size } of sets) {
          accessor.getElement(i, uv)
          const [u, w] = [uv[0]!, uv[1]!]
          sampled.sets.set(set, { uv: [t[0]! * u + t[1]! * w + t[2]!, t[3]! * u + t[4]! * w + t[5]!], size })
        }
        out.push(sampled)
      }
    }
  }
  return out
}

/** The largest UV shift in texels from `input` to `output`; null when the input samples no texture. */
export async function texcoordError(input: string, output: string): Promise<number | null> {
  const source = sampledVertices(await readDocument(input))
  if (source.length === 0) return null
  const result = sampledVertices(await readDocument(output))
  const lo = [Infinity, Infinity, Infinity]
  const hi = [-Infinity, -Infinity, -Infinity]
  for (const { position } of source)
    for (let d = 0; d < 3; d++) {
      lo[d] = Math.min(lo[d]!, position[d]!)
      hi[d] = Math.max(hi[d]!, position[d]!)
    }
  const reach = 1e-4 * (Math.hypot(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!) || 1)
  const cellOf = (p: number[]) => p.map((x, d) => Math.floor((x - lo[d]!) / reach))
  const grid = new Map<string, Sampled[]>()
  for (const s of source) {
    const key = cellOf(s.position).join(',')
    grid.get(key)?.push(s) ?? grid.set(key, [s])
  }
  let worst = 0
  for (const r of result) {
    const [x, y, z] = cellOf(r.position) as [number, number, number]
    const near: Sampled[] = []
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) near.push(...(grid.get(`${x + dx},${y + dy},${z + dz}`) ?? []))
    const placed = near.filter(
      (s) =>
        Math.hypot(
          s.position[0] - r.position[0],
          s.position[1] - r.position[1],
          s.position[2] - r.position[2],
        ) <= reach,
    )
    for (const [set, { uv, size }] of r.sets) {
      let best = Infinity
      for (const s of placed) {
        const other = s.sets.get(set)
        if (other)
          best = Math.min(best, Math.hypot((uv[0] - other.uv[0]) * size[0], (uv[1] - other.uv[1]) * size[1]))
      }
      if (best < Infinity) worst = Math.max(worst, best)
    }
  }
  return worst
}
