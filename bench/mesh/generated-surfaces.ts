// Generated bench models whose surfaces are built unlike the spheres of generated.ts, added in
// session 18 and never tuned on: a terrain (one big grid with vertex colours), hard-surface parts
// (flat shading: every face's corners split, half of them stored as a triangle soup without
// indices, as STL-like exporters write them) and a lightmapped room (two UV sets, tangents, several
// primitives in one mesh, 16-bit indices, colour, lightmap and normal textures). Seeded, so every run and machine gets the same files.
import { Document, type Material, type Mesh } from '@gltf-transform/core'
import { seededRandom } from '../../test/lifecycle/support/seeded.ts'
import { noisePng } from './generated.ts'

export type Vec3 = [number, number, number]

export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
export const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]
export const unit = (v: Vec3): Vec3 => {
  const l = Math.hypot(...v) || 1
  return [v[0] / l, v[1] / l, v[2] / l]
}

function accessors(doc: Document) {
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer()
  return (type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR', array: Float32Array | Uint32Array | Uint16Array) =>
    doc
      .createAccessor()
      .setType(type)
      .setArray(array as Float32Array<ArrayBuffer>)
      .setBuffer(buffer)
}

/**
 * A heightfield of `cells` × `cells` quads: rolling hills from a few octaves of seeded waves,
 * smooth normals, UVs over the whole field and a vertex colour by height and slope (the only
 * appearance such a scan or terrain export carries).
 */
export function terrain(cells = 400, seed = 21): Document {
  const doc = new Document()
  const accessor = accessors(doc)
  const next = seededRandom(seed)
  const waves = Array.from({ length: 6 }, (_, i) => ({
    kx: (next() - 0.5) * 2 ** i * 0.08,
    kz: (next() - 0.5) * 2 ** i * 0.08,
    phase: next() * Math.PI * 2,
    amplitude: 6 / 2 ** i,
  }))
  const height = (x: number, z: number) =>
    waves.reduce((h, w) => h + w.amplitude * Math.sin(w.kx * x + w.kz * z + w.phase), 0)
  const n = cells + 1
  const positions = new Float32Array(n * n * 3)
  const normals = new Float32Array(n * n * 3)
  const uvs = new Float32Array(n * n * 2)
  const colors = new Float32Array(n * n * 4)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const k = i * n + j
      const [x, z] = [j - cells / 2, i - cells / 2]
      const y = height(x, z)
      positions.set([x, y, z], k * 3)
      const normal = unit([
        height(x - 0.5, z) - height(x + 0.5, z),
        1,
        height(x, z - 0.5) - height(x, z + 0.5),
      ])
      normals.set(normal, k * 3)
      uvs.set([j / cells, i / cells], k * 2)
      const rock = 1 - normal[1]
      colors.set([0.3 + 0.4 * rock, 0.5 + 0.02 * y - 0.2 * rock, 0.2 + 0.3 * rock, 1], k * 4)
    }
  const indices = new Uint32Array(cells * cells * 6)
  let t = 0
  for (let i = 0; i < cells; i++)
    for (let j = 0; j < cells; j++) {
      const a = i * n + j
      indices.set([a, a + n, a + 1, a + 1, a + n, a + n + 1], t)
      t += 6
    }
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', normals))
    .setAttribute('TEXCOORD_0', accessor('VEC2', uvs))
    .setAttribute('COLOR_0', accessor('VEC4', colors))
    .setIndices(accessor('SCALAR', indices))
    .setMaterial(doc.createMaterial('ground').setRoughnessFactor(0.9))
  doc
    .createScene()
    .addChild(doc.createNode('terrain').setMesh(doc.createMesh('terrain').addPrimitive(primitive)))
  return doc
}

/** A solid of `sides`-gon cross-sections (`rings` of them, radii from `profile`), flat shaded. */
function flatSolid(sides: number, profile: readonly [y: number, radius: number][], twist: number): Vec3[] {
  const ring = (y: number, r: number, k: number) =>
    Array.from({ length: sides }, (_, s): Vec3 => {
      const a = ((s + 0.5 * k * twist) / sides) * 2 * Math.PI
      return [r * Math.cos(a), y, r * Math.sin(a)]
    })
  const rings = profile.map(([y, r], k) => ring(y, r, k))
  const triangles: Vec3[] = []
  for (let k = 0; k + 1 < rings.length; k++)
    for (let s = 0; s < sides; s++) {
      const [a, b] = [rings[k]![s]!, rings[k]![(s + 1) % sides]!]
      const [c, d] = [rings[k + 1]![s]!, rings[k + 1]![(s + 1) % sides]!]
      triangles.push(a, c, b, b, c, d)
    }
  // Caps: fans around each end's centre.
  const [bottom, top] = [rings[0]!, rings.at(-1)!]
  const [yb, yt] = [profile[0]![0], profile.at(-1)![0]]
  for (let s = 0; s < sides; s++) {
    triangles.push([0, yb, 0], bottom[s]!, bottom[(s + 1) % sides]!)
    triangles.push([0, yt, 0], top[(s + 1) % sides]!, top[s]!)
  }
  return triangles
}

/** Flat-shaded triangles as a primitive: every corner its own vertex with its face's normal. */
function flatPrimitive(doc: Document, triangles: Vec3[], material: Material, indexed: boolean) {
  const accessor = accessors(doc)
  const positions = new Float32Array(triangles.length * 3)
  const normals = new Float32Array(triangles.length * 3)
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t]!, triangles[t + 1]!, triangles[t + 2]!]
    const normal = unit(cross(sub(b, a), sub(c, a)))
    for (let k = 0; k < 3; k++) {
      positions.set(triangles[t + k]!, (t + k) * 3)
      normals.set(normal, (t + k) * 3)
    }
  }
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', normals))
    .setMaterial(material)
  if (indexed) {
    const indices =
      triangles.length <= 65_535 ? new Uint16Array(triangles.length) : new Uint32Array(triangles.length)
    for (let i = 0; i < indices.length; i++) indices[i] = i
    primitive.setIndices(accessor('SCALAR', indices))
  }
  return primitive
}

/**
 * `count` machined parts (bolts, housings, shafts: faceted solids of 6 to 48 sides with bevels),
 * flat shaded, each its own mesh and node, over five materials; every other part is a triangle
 * soup with no indices.
 */
export function hardSurface(count = 120, seed = 22): Document {
  const doc = new Document()
  doc.createBuffer()
  const next = seededRandom(seed)
  const materials = Array.from({ length: 5 }, (_, i) =>
    doc.createMaterial(`alloy-${i}`).setBaseColorFactor([next(), next(), next(), 1]).setMetallicFactor(0.8),
  )
  const scene = doc.createScene()
  for (let i = 0; i < count; i++) {
    const sides = [6, 8, 12, 24, 48][Math.floor(next() * 5)]!
    const steps = 2 + Math.floor(next() * 10)
    const profile: [number, number][] = [[0, 0.6 + next()]]
    for (let k = 1; k <= steps; k++) {
      const [y, r] = profile.at(-1)!
      // A bevel (a short, narrower ring) then a straight stretch, alternately.
      profile.push(k % 2 ? [y + 0.05 + 0.1 * next(), r * (0.7 + 0.25 * next())] : [y + 0.2 + next(), r])
    }
    const mesh: Mesh = doc
      .createMesh(`part-${i}`)
      .addPrimitive(
        flatPrimitive(doc, flatSolid(sides, profile, next() < 0.3 ? 1 : 0), materials[i % 5]!, i % 2 === 0),
      )
    scene.addChild(
      doc
        .createNode(`part-${i}`)
        .setMesh(mesh)
        .setTranslation([(i % 12) * 4 - 22, 0, Math.floor(i / 12) * 4 - 20])
        .setRotation(
          [0, Math.sin(i), 0, Math.cos(i)].map((v) => v / Math.hypot(Math.sin(i), Math.cos(i))) as [
            number,
            number,
            number,
            number,
          ],
        ),
    )
  }
  return doc
}

/**
 * A lightmapped room: one mesh of several primitives (floor, walls, ceiling, pillars), each a
 * finely tessellated slab with its own material, smooth normals, tangents, a tiling TEXCOORD_0
 * (UVs up to 20) and a lightmap TEXCOORD_1 unique across the room, indexed with 16 bits.
 */
export function lightmappedRoom(seed = 23): Document {
  const doc = new Document()
  const accessor = accessors(doc)
  const next = seededRandom(seed)
  const mesh = doc.createMesh('room')
  // A slab: an `nu` × `nv` grid from `origin` along `u` and `v` (unit vectors times lengths),
  // its surface rippled along the normal, and its place in the lightmap's atlas.
  const slab = (
    origin: Vec3,
    u: Vec3,
    v: Vec3,
    nu: number,
    nv: number,
    atlas: [number, number, number],
    material: Material,
  ) => {
    const normal = unit(cross(u, v))
    const count = (nu + 1) * (nv + 1)
    const positions = new Float32Array(count * 3)
    const normals = new Float32Array(count * 3)
    const tangents = new Float32Array(count * 4)
    const uv0 = new Float32Array(count * 2)
    const uv1 = new Float32Array(count * 2)
    const [lu, lv] = [Math.hypot(...u), Math.hypot(...v)]
    const ripple = 0.02 * next()
    for (let i = 0; i <= nv; i++)
      for (let j = 0; j <= nu; j++) {
        const k = i * (nu + 1) + j
        const [a, b] = [j / nu, i / nv]
        const lift = ripple * Math.sin(a * 40) * Math.sin(b * 40)
        positions.set(
          [0, 1, 2].map((c) => origin[c]! + u[c]! * a + v[c]! * b + normal[c]! * lift),
          k * 3,
        )
        normals.set(normal, k * 3)
        tangents.set([...unit(u), 1], k * 4)
        uv0.set([a * lu, b * lv], k * 2)
        uv1.set([atlas[0] + a * atlas[2], atlas[1] + b * atlas[2]], k * 2)
      }
    const indices = new Uint16Array(nu * nv * 6)
    let t = 0
    for (let i = 0; i < nv; i++)
      for (let j = 0; j < nu; j++) {
        const a = i * (nu + 1) + j
        indices.set([a, a + nu + 1, a + 1, a + 1, a + nu + 1, a + nu + 2], t)
        t += 6
      }
    mesh.addPrimitive(
      doc
        .createPrimitive()
        .setAttribute('POSITION', accessor('VEC3', positions))
        .setAttribute('NORMAL', accessor('VEC3', normals))
        .setAttribute('TANGENT', accessor('VEC4', tangents))
        .setAttribute('TEXCOORD_0', accessor('VEC2', uv0))
        .setAttribute('TEXCOORD_1', accessor('VEC2', uv1))
        .setIndices(accessor('SCALAR', indices))
        .setMaterial(material),
    )
  }
  // Every surface samples a tiling colour texture through TEXCOORD_0 and the room's lightmap
  // through TEXCOORD_1; walls and pillars have a normal map too (their tangents are used, the
  // floor's and ceiling's are not).
  const texture = (name: string, seed: number) =>
    doc.createTexture(name).setImage(noisePng(64, seed)).setMimeType('image/png')
  const lightmap = texture('lightmap', seed + 100)
  const bumps = texture('bumps', seed + 101)
  const material = (name: string, k: number) => {
    const m = doc
      .createMaterial(name)
      .setBaseColorFactor([next(), next(), next(), 1])
      .setBaseColorTexture(texture(`${name}-colour`, seed + k))
      .setOcclusionTexture(lightmap)
    m.getOcclusionTextureInfo()!.setTexCoord(1)
    if (name === 'plaster' || name === 'stone') m.setNormalTexture(bumps)
    return m
  }
  const [floor, wall, ceiling, pillar] = ['floor', 'plaster', 'ceiling', 'stone'].map(material) as [
    Material,
    Material,
    Material,
    Material,
  ]
  slab([-10, 0, -10], [20, 0, 0], [0, 0, 20], 120, 120, [0, 0, 0.5], floor)
  slab([-10, 6, 10], [20, 0, 0], [0, 0, -20], 120, 120, [0.5, 0, 0.5], ceiling)
  slab([-10, 0, -10], [0, 0, 20], [0, 6, 0], 100, 40, [0, 0.5, 0.25], wall)
  slab([10, 0, 10], [0, 0, -20], [0, 6, 0], 100, 40, [0.25, 0.5, 0.25], wall)
  slab([10, 0, -10], [-20, 0, 0], [0, 6, 0], 100, 40, [0.5, 0.5, 0.25], wall)
  for (let p = 0; p < 4; p++) {
    const [x, z] = [p % 2 ? 5 : -5, p < 2 ? 5 : -5]
    slab([x, 0, z], [1, 0, 0], [0, 6, 0], 10, 60, [0.75 + 0.0625 * p, 0.5, 0.0625], pillar)
  }
  doc.createScene().addChild(doc.createNode('room').setMesh(mesh))
  return doc
}
