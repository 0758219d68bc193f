// Generated vehicles (session 32): one large static body and small parts that the scene places
// several times each at their own scales (wheels, bolts), as CesiumMilkTruck places its wheels
// twice. The parts stay meshes of their own (a mesh placed more than once is not merged), so they
// show whether a simplifier holds each part to a share of the whole model or of the part alone.
import { Document } from '@gltf-transform/core'
import { seededRandom } from '../../test/lifecycle/support/seeded.ts'

interface Shape {
  positions: number[]
  normals: number[]
  indices: number[]
}

/** A torus of `around` × `tube` quads (radii `major` and `minor`, axis z), its tube bumped by `noise`. */
function torus(around: number, tube: number, major: number, minor: number, noise: () => number): Shape {
  const shape: Shape = { positions: [], normals: [], indices: [] }
  for (let i = 0; i < around; i++) {
    const u = (2 * Math.PI * i) / around
    for (let j = 0; j < tube; j++) {
      const v = (2 * Math.PI * j) / tube
      const n = [Math.cos(u) * Math.cos(v), Math.sin(u) * Math.cos(v), Math.sin(v)]
      const r = minor * (1 + 0.15 * (noise() - 0.5))
      shape.positions.push(Math.cos(u) * major + n[0]! * r, Math.sin(u) * major + n[1]! * r, n[2]! * r)
      shape.normals.push(...n)
    }
  }
  const at = (i: number, j: number) => (i % around) * tube + (j % tube)
  for (let i = 0; i < around; i++)
    for (let j = 0; j < tube; j++)
      shape.indices.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1))
  return shape
}

/** A ball of `rings` × 2·`rings` quads and radius 1 with one vertex at each pole, bumped by `amplitude`. */
function ball(rings: number, amplitude: number, noise: () => number): Shape {
  const shape: Shape = { positions: [0, -1, 0], normals: [0, -1, 0], indices: [] }
  const around = 2 * rings
  for (let r = 1; r < rings; r++)
    for (let a = 0; a < around; a++) {
      const [theta, phi] = [(Math.PI * r) / rings, (2 * Math.PI * a) / around]
      const n = [Math.sin(theta) * Math.cos(phi), -Math.cos(theta), Math.sin(theta) * Math.sin(phi)]
      const bump = 1 + amplitude * (noise() - 0.5)
      shape.positions.push(...n.map((c) => c * bump))
      shape.normals.push(...n)
    }
  shape.positions.push(0, 1, 0)
  shape.normals.push(0, 1, 0)
  const ring = (r: number, a: number) => 1 + (r - 1) * around + (a % around)
  const top = shape.positions.length / 3 - 1
  for (let a = 0; a < around; a++) {
    shape.indices.push(0, ring(1, a), ring(1, a + 1))
    for (let r = 1; r < rings - 1; r++)
      shape.indices.push(
        ring(r, a),
        ring(r + 1, a),
        ring(r + 1, a + 1),
        ring(r, a),
        ring(r + 1, a + 1),
        ring(r, a + 1),
      )
    shape.indices.push(ring(rings - 1, a), top, ring(rings - 1, a + 1))
  }
  return shape
}

function meshOf(doc: Document, name: string, shape: Shape, material: string) {
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer()
  const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(shape.positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(shape.normals)))
    .setIndices(accessor('SCALAR', new Uint32Array(shape.indices)))
    .setMaterial(doc.createMaterial(material))
  return doc.createMesh(name).addPrimitive(primitive)
}

export interface Vehicle {
  wheels: number
  bolts: number
  /** Rings of the body's ball (its faces: about 4·rings²). */
  rings: number
  seed: number
}

/** A body 6 units long on `wheels` wheels, with `bolts` bolts along its sides. */
export function vehicle({ wheels, bolts, rings, seed }: Vehicle): Document {
  const doc = new Document()
  doc.createBuffer()
  const next = seededRandom(seed)
  const scene = doc.createScene()
  scene.addChild(
    doc
      .createNode('body')
      .setMesh(meshOf(doc, 'body', ball(rings, 0.03, next), 'paint'))
      .setTranslation([0, 1.4, 0])
      .setScale([3, 0.9, 1.3]),
  )
  const wheel = meshOf(doc, 'wheel', torus(48, 24, 1, 0.45, next), 'rubber')
  const axles = Math.ceil(wheels / 2)
  for (let w = 0; w < wheels; w++) {
    const x = axles > 1 ? -2.2 + (4.4 * Math.floor(w / 2)) / (axles - 1) : 0
    const s = 0.38 + 0.04 * next()
    scene.addChild(
      doc
        .createNode(`wheel-${w}`)
        .setMesh(wheel)
        .setTranslation([x, 0.55, w % 2 === 0 ? 1.3 : -1.3])
        .setScale([s, s, s]),
    )
  }
  const bolt = meshOf(doc, 'bolt', ball(10, 0.1, next), 'steel')
  for (let b = 0; b < bolts; b++) {
    const s = 0.04 + 0.03 * next()
    scene.addChild(
      doc
        .createNode(`bolt-${b}`)
        .setMesh(bolt)
        .setTranslation([-2.5 + 5 * next(), 1 + 0.8 * next(), b % 2 === 0 ? 1.25 : -1.25])
        .setScale([s, s, s]),
    )
  }
  return doc
}
