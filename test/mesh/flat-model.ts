// A flat-shaded test model made at test time: machined parts whose every face carries its own
// normal at its own corners, as CAD exports and low-poly art write them; and the facts a test
// checks about such a file.
import { Document, NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { MeshoptDecoder } from 'meshoptimizer'
import { writeDocument } from '../../bench/mesh/generated.ts'
import { cross, hardSurface, sub, unit, type Vec3 } from '../../bench/mesh/generated-surfaces.ts'

/**
 * Eight machined parts of the bench's hard-surface family (faceted solids of 6 to 48 sides with
 * bevels, flat shaded, half of them triangle soups without indices), from a seed the bench does not
 * use.
 */
export async function writeFlatParts(path: string): Promise<void> {
  await writeDocument(path, hardSurface(8, 5))
}

/**
 * A faceted sphere of `segments` × `rings` quads (two triangles each), every triangle with corners
 * of its own carrying its normal: fine enough that neighbouring faces' normals are within a degree
 * of each other toward the poles.
 */
export async function writeFacetedSphere(path: string, segments: number, rings: number): Promise<void> {
  const at = (s: number, r: number): Vec3 => {
    const [theta, phi] = [(2 * Math.PI * (s % segments)) / segments, (Math.PI * r) / rings]
    return [Math.sin(phi) * Math.cos(theta), Math.cos(phi), Math.sin(phi) * Math.sin(theta)]
  }
  const positions: number[] = []
  const normals: number[] = []
  const triangle = (a: Vec3, b: Vec3, c: Vec3) => {
    const n = unit(cross(sub(b, a), sub(c, a)))
    for (const corner of [a, b, c]) {
      positions.push(...corner)
      normals.push(...n)
    }
  }
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const [a, b, c, d] = [at(s, r), at(s + 1, r), at(s + 1, r + 1), at(s, r + 1)]
      if (r > 0) triangle(a, b, c)
      if (r < rings - 1) triangle(a, c, d)
    }
  }
  const doc = new Document()
  const buffer = doc.createBuffer()
  const vec3 = (values: number[]) =>
    doc.createAccessor().setType('VEC3').setArray(new Float32Array(values)).setBuffer(buffer)
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', vec3(positions))
    .setAttribute('NORMAL', vec3(normals))
  doc.createScene().addChild(doc.createNode('ball').setMesh(doc.createMesh('ball').addPrimitive(primitive)))
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
