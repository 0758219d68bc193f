// A morphed test model made at test time (the corpus has none), and the posed geometry of any
// GLB: base positions plus weighted target deltas, in world space, read with glTF-Transform
// (quantized and meshopt-compressed output included).
import { Document, NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { MeshoptDecoder } from 'meshoptimizer'

export const targetNames = ['jaw_open', 'brow_up', 'cheek_puff']
export const meshWeights = [0, 0.3, 0]
/** The weights animation: three keys of three weights. */
export const talkTimes = [0, 0.5, 1]
export const talkWeights = [0, 0, 0, 1, 0.5, 0.2, 0, 1, 1]

async function io(): Promise<NodeIO> {
  await MeshoptDecoder.ready
  return new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
}

/**
 * A "face": a UV sphere (32 segments, 16 rings, with normals) placed by a node that moves and
 * scales it, with three named targets that move only its front (z > 0): the jaw drops the lower
 * front, the brow lifts the upper front, the cheek puffs the right front outward and turns its
 * normals. The back never moves, so simplification has somewhere to work.
 *
 * The sphere's seam column is written twice (theta 0 and 2 pi), the copies equal in position
 * and normal. With `tornSeam`, the jaw target moves the second copy further than the first
 * (a jaw that opens a crack): those copies then differ in a target only.
 */
export async function writeMorphedFace(path: string, tornSeam = false): Promise<number> {
  let torn = 0
  const segments = 32
  const rings = 16
  const positions: number[] = []
  const normals: number[] = []
  const deltas: number[][] = [[], [], []]
  const cheekNormals: number[] = []
  for (let r = 0; r <= rings; r++) {
    const phi = (Math.PI * r) / rings
    for (let s = 0; s <= segments; s++) {
      const theta = (2 * Math.PI * s) / segments
      const [x, y, z] = [Math.sin(phi) * Math.sin(theta), Math.cos(phi), Math.sin(phi) * Math.cos(theta)]
      positions.push(x, y, z)
      normals.push(x, y, z)
      const front = Math.max(0, z)
      const jaw = y < -0.2 ? -0.4 * front * (-0.2 - y) : 0
      const tear = tornSeam && s === segments && Math.abs(jaw) > 1e-9 ? -0.1 : 0
      torn += tear === 0 ? 0 : 1
      deltas[0]!.push(0, jaw + tear, 0)
      deltas[1]!.push(0, y > 0.4 ? 0.3 * front * (y - 0.4) : 0, 0)
      const puff = x > 0.3 ? 0.25 * front * (x - 0.3) : 0
      deltas[2]!.push(puff * x, puff * y, puff * z)
      cheekNormals.push(puff > 0 ? 0.2 : 0, 0, puff > 0 ? -0.1 : 0)
    }
  }
  const indices: number[] = []
  const row = segments + 1
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * row + s
      if (r > 0) indices.push(a, a + row, a + 1)
      if (r < rings - 1) indices.push(a + 1, a + row, a + row + 1)
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
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(indices)).setBuffer(buffer))
  deltas.forEach((d, t) => {
    const target = doc.createPrimitiveTarget(targetNames[t]).setAttribute('POSITION', vec3(d))
    if (t === 2) target.setAttribute('NORMAL', vec3(cheekNormals))
    primitive.addTarget(target)
  })
  const mesh = doc
    .createMesh('face')
    .addPrimitive(primitive)
    .setWeights(meshWeights)
    .setExtras({ targetNames })
  const node = doc.createNode('head').setMesh(mesh).setTranslation([0, 1, 0]).setScale([2, 2, 2])
  doc.createScene().addChild(node)
  const sampler = doc
    .createAnimationSampler()
    .setInput(doc.createAccessor().setType('SCALAR').setArray(new Float32Array(talkTimes)).setBuffer(buffer))
    .setOutput(
      doc.createAccessor().setType('SCALAR').setArray(new Float32Array(talkWeights)).setBuffer(buffer),
    )
  const channel = doc
    .createAnimationChannel()
    .setTargetNode(node)
    .setTargetPath('weights')
    .setSampler(sampler)
  doc.createAnimation('talk').addSampler(sampler).addChannel(channel)
  await (await io()).write(path, doc)
  return torn
}

export interface Posed {
  positions: number[][]
  triangles: number[][]
}

function transform(m: ArrayLike<number>, v: number[]): number[] {
  return [0, 1, 2].map((k) => m[k]! * v[0]! + m[4 + k]! * v[1]! + m[8 + k]! * v[2]! + m[12 + k]!)
}

/** Every morphed mesh instance of the GLB posed at `weights`, in world space. */
export async function posed(path: string, weights: number[]): Promise<Posed> {
  const doc = await (await io()).read(path)
  const out: Posed = { positions: [], triangles: [] }
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh()
    if (!mesh) continue
    const world = node.getWorldMatrix()
    for (const primitive of mesh.listPrimitives()) {
      const base = primitive.getAttribute('POSITION')!
      const deltas = primitive.listTargets().map((t) => t.getAttribute('POSITION'))
      const first = out.positions.length
      for (let v = 0; v < base.getCount(); v++) {
        const p: number[] = base.getElement(v, [])
        deltas.forEach((d, t) => {
          const delta: number[] = d?.getElement(v, []) ?? [0, 0, 0]
          for (let k = 0; k < 3; k++) p[k]! += (weights[t] ?? 0) * delta[k]!
        })
        out.positions.push(transform(world, p))
      }
      // Without indices, every three vertices are a triangle.
      const indices =
        primitive.getIndices()?.getArray() ?? Array.from({ length: base.getCount() }, (_, i) => i)
      for (let i = 0; i < indices.length; i += 3)
        out.triangles.push([first + indices[i]!, first + indices[i + 1]!, first + indices[i + 2]!])
    }
  }
  return out
}

const sub = (a: number[], b: number[]) => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!]
const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!

/** Distance from p to triangle abc (Ericson, Real-Time Collision Detection, 5.1.5). */
function pointTriangle(p: number[], a: number[], b: number[], c: number[]): number {
  const ab = sub(b, a)
  const ac = sub(c, a)
  const ap = sub(p, a)
  const d1 = dot(ab, ap)
  const d2 = dot(ac, ap)
  let q: number[]
  const bp = sub(p, b)
  const d3 = dot(ab, bp)
  const d4 = dot(ac, bp)
  const cp = sub(p, c)
  const d5 = dot(ab, cp)
  const d6 = dot(ac, cp)
  const va = d3 * d6 - d5 * d4
  const vb = d5 * d2 - d1 * d6
  const vc = d1 * d4 - d3 * d2
  const along = (from: number[], dir: number[], t: number) => from.map((x, k) => x + t * dir[k]!)
  if (d1 <= 0 && d2 <= 0) q = a
  else if (d3 >= 0 && d4 <= d3) q = b
  else if (d6 >= 0 && d5 <= d6) q = c
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) q = along(a, ab, d1 / (d1 - d3))
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) q = along(a, ac, d2 / (d2 - d6))
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) q = along(b, sub(c, b), (d4 - d3) / (d4 - d3 + (d5 - d6)))
  else {
    const denom = 1 / (va + vb + vc)
    q = a.map((x, k) => x + ab[k]! * vb * denom + ac[k]! * vc * denom)
  }
  const d = sub(p, q)
  return Math.sqrt(dot(d, d))
}

/** The largest distance from a vertex of `from` to the surface of `to` (one-sided Hausdorff on vertices). */
export function farthestVertex(from: Posed, to: Posed): number {
  let worst = 0
  for (const p of from.positions) {
    let nearest = Number.POSITIVE_INFINITY
    for (const [a, b, c] of to.triangles) {
      nearest = Math.min(nearest, pointTriangle(p, to.positions[a!]!, to.positions[b!]!, to.positions[c!]!))
      if (nearest <= worst) break
    }
    worst = Math.max(worst, nearest)
  }
  return worst
}

/** The largest side of the posed geometry's bounding box. */
export function extent(p: Posed): number {
  const lo = [0, 1, 2].map((k) => Math.min(...p.positions.map((v) => v[k]!)))
  const hi = [0, 1, 2].map((k) => Math.max(...p.positions.map((v) => v[k]!)))
  return Math.max(...hi.map((h, k) => h - lo[k]!))
}

/** The document's JSON-level facts about its morph targets, as glTF-Transform reads them. */
export async function morphFacts(path: string) {
  const doc = await (await io()).read(path)
  const root = doc.getRoot()
  const mesh = root.listMeshes()[0]!
  const channel = root.listAnimations()[0]?.listChannels()[0]
  const sampler = channel?.getSampler()
  return {
    targetNames: (mesh.getExtras() as { targetNames?: string[] }).targetNames,
    weights: mesh.getWeights(),
    targetCounts: mesh.listPrimitives().map((p) => p.listTargets().length),
    channelPath: channel?.getTargetPath(),
    channelNodeHasMesh: channel?.getTargetNode()?.getMesh() === mesh,
    times: Array.from(sampler?.getInput()?.getArray() ?? []),
    keys: Array.from(sampler?.getOutput()?.getArray() ?? []),
    faces: mesh.listPrimitives().reduce((n, p) => n + (p.getIndices()?.getCount() ?? 0) / 3, 0),
  }
}
