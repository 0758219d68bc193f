// A flat-shaded test model made at test time: machined parts (faceted solids of revolution with
// bevels) whose every face carries its own normal at its own corners, as CAD exports and low-poly
// art write them; and the facts a test checks about such a file.
import { Document, NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { MeshoptDecoder } from 'meshoptimizer'

type Vec3 = [number, number, number]

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]
const unit = (a: Vec3): Vec3 => {
  const length = Math.hypot(...a)
  return length > 0 ? [a[0] / length, a[1] / length, a[2] / length] : [0, 0, 1]
}

/**
 * One part: `sides` facets around the y axis over a profile of (height, radius) rings, closed by
 * two caps, flat shaded (each side quad and each cap with corners of its own).
 */
function part(sides: number, profile: [number, number][]) {
  const positions: number[] = []
  const normals: number[] = []
  const indices: number[] = []
  const face = (corners: Vec3[]) => {
    const normal = unit(cross(sub(corners[1]!, corners[0]!), sub(corners[2]!, corners[0]!)))
    const base = positions.length / 3
    for (const c of corners) {
      positions.push(...c)
      normals.push(...normal)
    }
    for (let k = 1; k + 1 < corners.length; k++) indices.push(base, base + k, base + k + 1)
  }
  const at = (k: number, [y, r]: [number, number]): Vec3 => {
    const angle = (2 * Math.PI * (k % sides)) / sides
    return [r * Math.cos(angle), y, r * Math.sin(angle)]
  }
  for (let ring = 0; ring + 1 < profile.length; ring++) {
    for (let k = 0; k < sides; k++) {
      const [low, high] = [profile[ring]!, profile[ring + 1]!]
      face([at(k, low), at(k, high), at(k + 1, high), at(k + 1, low)])
    }
  }
  const [bottom, top] = [profile[0]!, profile.at(-1)!]
  face(Array.from({ length: sides }, (_, k) => at(k, bottom)))
  face(Array.from({ length: sides }, (_, k) => at(sides - k, top)))
  return { positions, normals, indices }
}

/** The parts: bolts and shafts of 16 to 64 sides, each with bevels, one mesh and node each. */
export async function writeFlatParts(path: string): Promise<void> {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const material = doc.createMaterial('steel').setMetallicFactor(0.9)
  const scene = doc.createScene()
  const shapes: [number, [number, number][]][] = [
    [
      64,
      [
        [0, 1],
        [0.1, 0.8],
        [1.5, 0.8],
        [1.6, 1],
        [2, 1],
      ],
    ],
    [
      48,
      [
        [0, 0.6],
        [2.5, 0.6],
        [2.6, 0.45],
        [3, 0.45],
      ],
    ],
    [
      32,
      [
        [0, 1.2],
        [0.3, 1.2],
        [0.35, 1],
        [0.8, 1],
        [0.9, 0.7],
        [2, 0.7],
      ],
    ],
    [
      16,
      [
        [0, 0.5],
        [0.05, 0.45],
        [1, 0.45],
        [1.05, 0.5],
        [1.2, 0.5],
      ],
    ],
  ]
  shapes.forEach(([sides, profile], i) => {
    const { positions, normals, indices } = part(sides, profile)
    const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>) =>
      doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
      .setAttribute('NORMAL', accessor('VEC3', new Float32Array(normals)))
      .setIndices(accessor('SCALAR', new Uint16Array(indices)))
      .setMaterial(material)
    const mesh = doc.createMesh(`part-${i}`).addPrimitive(primitive)
    scene.addChild(
      doc
        .createNode(`part-${i}`)
        .setMesh(mesh)
        .setTranslation([i * 3, 0, 0]),
    )
  })
  await (await io()).write(path, doc)
}

async function io(): Promise<NodeIO> {
  await MeshoptDecoder.ready
  return new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
}

/**
 * Of every triangle of the GLB (quantized and compressed output included), the largest angle in
 * degrees between a corner's normal and the normal its corner positions give, and the triangles
 * counted; degenerate triangles are left out.
 */
export async function flatShading(path: string): Promise<{ worstAngle: number; triangles: number }> {
  const doc = await (await io()).read(path)
  let worstAngle = 0
  let triangles = 0
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')!
      const normal = primitive.getAttribute('NORMAL')!
      // Without indices (an unwelded file), every three vertices are a triangle.
      const indices =
        primitive.getIndices()?.getArray() ?? Array.from({ length: position.getCount() }, (_, i) => i)
      for (let i = 0; i < indices.length; i += 3) {
        const corners = [0, 1, 2].map((k) => indices[i + k]!)
        const [a, b, c] = corners.map((v) => position.getElement(v, [0, 0, 0]) as Vec3)
        const own = cross(sub(b!, a!), sub(c!, a!))
        if (Math.hypot(...own) < 1e-9) continue
        triangles++
        for (const v of corners) {
          const n = unit(normal.getElement(v, [0, 0, 0]) as Vec3)
          const cos = Math.min(1, n[0] * unit(own)[0] + n[1] * unit(own)[1] + n[2] * unit(own)[2])
          worstAngle = Math.max(worstAngle, (Math.acos(cos) * 180) / Math.PI)
        }
      }
    }
  }
  return { worstAngle, triangles }
}
