// Bench geometry helpers: read any GLB (meshopt-compressed and quantized included) into world-space
// triangles with glTF-Transform, write a generated mesh as GLB, and measure simplification error.
import { Document, NodeIO, type Primitive } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { uninstance } from '@gltf-transform/functions'
import { MeshoptDecoder } from 'meshoptimizer'

export interface Triangles {
  positions: Float32Array
  indices: Uint32Array
}

async function io(): Promise<NodeIO> {
  await MeshoptDecoder.ready
  return new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
}

/** a × b for column-major 4×4 matrices. */
function multiply(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(16).fill(0)
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r]! += a[k * 4 + r]! * b[c * 4 + k]!
  return out
}

/** A GLB as a viewer sees it: EXT_mesh_gpu_instancing instances become nodes. */
export async function readDocument(path: string): Promise<Document> {
  const doc = await (await io()).read(path)
  await doc.transform(uninstance())
  return doc
}

/** All triangles of the default scene in world space. */
export async function readTriangles(path: string): Promise<Triangles> {
  return trianglesOf(await readDocument(path))
}

/** All triangles of the document's nodes in world space, as their transforms stand now. */
export function trianglesOf(doc: Document): Triangles {
  const positions: number[] = []
  const indices: number[] = []
  const transform = (m: ArrayLike<number>, v: number[]) => [
    m[0]! * v[0]! + m[4]! * v[1]! + m[8]! * v[2]! + m[12]!,
    m[1]! * v[0]! + m[5]! * v[1]! + m[9]! * v[2]! + m[13]!,
    m[2]! * v[0]! + m[6]! * v[1]! + m[10]! * v[2]! + m[14]!,
  ]
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh()
    if (!mesh) continue
    const m = node.getWorldMatrix()
    // A skinned mesh is placed by its joints, not its node: each vertex goes through
    // sum(weight * jointWorld * inverseBind), in the bind pose the file's node tree gives.
    const skin = node.getSkin()
    const jointMatrices = skin?.listJoints().map((joint, j) => {
      // Without inverse bind matrices each is the identity (glTF 2.0, 5.28).
      const ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
      skin.getInverseBindMatrices()?.getElement(j, ibm)
      return multiply(joint.getWorldMatrix(), ibm)
    })
    for (const prim of mesh.listPrimitives() as Primitive[]) {
      const pos = prim.getAttribute('POSITION')
      const mode = prim.getMode()
      if (!pos || (mode !== 4 && mode !== 5 && mode !== 6)) continue
      const base = positions.length / 3
      const v = [0, 0, 0]
      const joints = [0, 0, 0, 0]
      const weights = [0, 0, 0, 0]
      const jointsOf = prim.getAttribute('JOINTS_0')
      const weightsOf = prim.getAttribute('WEIGHTS_0')
      for (let i = 0; i < pos.getCount(); i++) {
        pos.getElement(i, v)
        if (jointMatrices && jointsOf && weightsOf) {
          jointsOf.getElement(i, joints)
          weightsOf.getElement(i, weights)
          const out = [0, 0, 0]
          // Normalized as engines do, so a source whose weights do not sum to 1 compares fairly.
          const total = weights.reduce((a, b) => a + b, 0) || 1
          for (let k = 0; k < 4; k++) {
            const w = weights[k]! / total
            if (w === 0) continue
            const p = transform(jointMatrices[joints[k]!]!, v)
            for (let d = 0; d < 3; d++) out[d]! += w * p[d]!
          }
          positions.push(...out)
        } else positions.push(...transform(m, v))
      }
      const idx = prim.getIndices()
      const count = idx ? idx.getCount() : pos.getCount()
      const at = (i: number) => base + (idx ? idx.getScalar(i) : i)
      if (mode === 4) for (let i = 0; i < count; i++) indices.push(at(i))
      // Strips alternate their winding; fans turn about their first vertex.
      else if (mode === 5)
        for (let i = 2; i < count; i++)
          indices.push(...(i % 2 ? [at(i - 1), at(i - 2), at(i)] : [at(i - 2), at(i - 1), at(i)]))
      else for (let i = 2; i < count; i++) indices.push(at(0), at(i - 1), at(i))
    }
  }
  return { positions: Float32Array.from(positions), indices: Uint32Array.from(indices) }
}

/** A bumpy UV sphere of about `triangles` triangles, written as a plain GLB. */
export async function writeGeneratedSphere(path: string, triangles: number): Promise<void> {
  const rings = Math.round(Math.sqrt(triangles / 4))
  const segments = rings * 2
  const positions = new Float32Array((rings + 1) * (segments + 1) * 3)
  let k = 0
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI
    for (let s = 0; s <= segments; s++) {
      const phi = (s / segments) * 2 * Math.PI
      const bump = 1 + 0.05 * Math.sin(theta * 9) * Math.cos(phi * 7)
      positions[k++] = bump * Math.sin(theta) * Math.cos(phi)
      positions[k++] = bump * Math.cos(theta)
      positions[k++] = bump * Math.sin(theta) * Math.sin(phi)
    }
  }
  const indices = new Uint32Array(rings * segments * 6)
  k = 0
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s
      const b = a + segments + 1
      indices.set([a, b, a + 1, a + 1, b, b + 1], k)
      k += 6
    }
  }
  const doc = new Document()
  const buffer = doc.createBuffer()
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer))
  doc.createScene().addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)))
  await (await io()).write(path, doc)
}

/** Squared distance from p to the segment between the vertices at offsets a and b of P. */
function segmentDistanceSq(p: number[], P: Float32Array, a: number, b: number): number {
  const d = [P[b]! - P[a]!, P[b + 1]! - P[a + 1]!, P[b + 2]! - P[a + 2]!]
  const length2 = d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2
  const along = (k: number) => (p[k]! - P[a + k]!) * d[k]!
  const t = length2 > 0 ? Math.min(1, Math.max(0, (along(0) + along(1) + along(2)) / length2)) : 0
  return (
    (p[0]! - P[a]! - d[0]! * t) ** 2 +
    (p[1]! - P[a + 1]! - d[1]! * t) ** 2 +
    (p[2]! - P[a + 2]! - d[2]! * t) ** 2
  )
}

function closestDistanceSq(p: number[], t: Triangles, f: number): number {
  const P = t.positions
  const a = t.indices[f * 3]! * 3
  const b = t.indices[f * 3 + 1]! * 3
  const c = t.indices[f * 3 + 2]! * 3
  // Ericson's closest point on triangle, by Voronoi regions.
  const ab = [P[b]! - P[a]!, P[b + 1]! - P[a + 1]!, P[b + 2]! - P[a + 2]!]
  const ac = [P[c]! - P[a]!, P[c + 1]! - P[a + 1]!, P[c + 2]! - P[a + 2]!]
  const normal = [
    ab[1]! * ac[2]! - ab[2]! * ac[1]!,
    ab[2]! * ac[0]! - ab[0]! * ac[2]!,
    ab[0]! * ac[1]! - ab[1]! * ac[0]!,
  ]
  if (normal[0] === 0 && normal[1] === 0 && normal[2] === 0) {
    // A zero-area triangle (the poles of a UV sphere, or corners quantization merged) is a segment
    // or a point; the barycentric regions below would divide 0 by 0, so take its nearest edge.
    return Math.min(
      segmentDistanceSq(p, P, a, b),
      segmentDistanceSq(p, P, b, c),
      segmentDistanceSq(p, P, c, a),
    )
  }
  const ap = [p[0]! - P[a]!, p[1]! - P[a + 1]!, p[2]! - P[a + 2]!]
  const dot = (x: number[], y: number[]) => x[0]! * y[0]! + x[1]! * y[1]! + x[2]! * y[2]!
  const d1 = dot(ab, ap)
  const d2 = dot(ac, ap)
  const bp = [p[0]! - P[b]!, p[1]! - P[b + 1]!, p[2]! - P[b + 2]!]
  const d3 = dot(ab, bp)
  const d4 = dot(ac, bp)
  const cp = [p[0]! - P[c]!, p[1]! - P[c + 1]!, p[2]! - P[c + 2]!]
  const d5 = dot(ab, cp)
  const d6 = dot(ac, cp)
  let v = 0
  let w = 0
  const va = d3 * d6 - d5 * d4
  const vb = d5 * d2 - d1 * d6
  const vc = d1 * d4 - d3 * d2
  if (d1 <= 0 && d2 <= 0) [v, w] = [0, 0]
  else if (d3 >= 0 && d4 <= d3) [v, w] = [1, 0]
  else if (d6 >= 0 && d5 <= d6) [v, w] = [0, 1]
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) [v, w] = [d1 / (d1 - d3), 0]
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) [v, w] = [0, d2 / (d2 - d6)]
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    w = (d4 - d3) / (d4 - d3 + (d5 - d6))
    v = 1 - w
  } else {
    const denom = 1 / (va + vb + vc)
    v = vb * denom
    w = vc * denom
  }
  const q = [0, 1, 2].map((k) => P[a + k]! + ab[k]! * v + ac[k]! * w)
  return (p[0]! - q[0]!) ** 2 + (p[1]! - q[1]!) ** 2 + (p[2]! - q[2]!) ** 2
}

/**
 * How far the original surface lies from the simplified one: for up to `samples` original vertices,
 * the distance to the nearest simplified triangle (a uniform grid narrows the search), as max and
 * mean relative to the original bounding-box diagonal. Independent of any tool's own error estimate.
 * Only the vertices of the original's triangles are its surface: a vertex no triangle uses, which
 * every tool drops, measured as if it were on it (since session 52: a fresh skinned creature's 38
 * unused vertices gave both tools the same error, 2.2 times the bound, with nothing simplified).
 */
export function surfaceError(
  original: Triangles,
  simplified: Triangles,
  samples = 20000,
): { max: number; mean: number } {
  const O = original.positions
  const used = new Uint8Array(O.length / 3)
  for (const v of original.indices) used[v] = 1
  const surface: number[] = []
  for (let v = 0; v < used.length; v++) if (used[v]) surface.push(v)
  const lo = [Infinity, Infinity, Infinity]
  const hi = [-Infinity, -Infinity, -Infinity]
  for (const v of surface) {
    for (let d = 0; d < 3; d++) {
      lo[d] = Math.min(lo[d]!, O[v * 3 + d]!)
      hi[d] = Math.max(hi[d]!, O[v * 3 + d]!)
    }
  }
  const diagonal = Math.hypot(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!) || 1
  const cells = 48
  const cell = diagonal / cells
  const key = (x: number, y: number, z: number) => `${x},${y},${z}`
  const grid = new Map<string, number[]>()
  const S = simplified.positions
  const faceCount = simplified.indices.length / 3
  for (let f = 0; f < faceCount; f++) {
    const min = [Infinity, Infinity, Infinity]
    const max = [-Infinity, -Infinity, -Infinity]
    for (let k = 0; k < 3; k++) {
      const v = simplified.indices[f * 3 + k]! * 3
      for (let d = 0; d < 3; d++) {
        min[d] = Math.min(min[d]!, S[v + d]!)
        max[d] = Math.max(max[d]!, S[v + d]!)
      }
    }
    const cellOf = (value: number, d: number) => Math.floor((value - lo[d]!) / cell)
    const [x0, y0, z0] = [cellOf(min[0]!, 0), cellOf(min[1]!, 1), cellOf(min[2]!, 2)]
    const [x1, y1, z1] = [cellOf(max[0]!, 0), cellOf(max[1]!, 1), cellOf(max[2]!, 2)]
    for (let x = x0; x <= x1; x++)
      for (let y = y0; y <= y1; y++)
        for (let z = z0; z <= z1; z++) grid.get(key(x, y, z))?.push(f) ?? grid.set(key(x, y, z), [f])
  }
  const step = Math.max(1, Math.floor(surface.length / samples))
  let max = 0
  let sum = 0
  let n = 0
  for (let i = 0; i < surface.length; i += step) {
    const v = surface[i]!
    const p = [O[v * 3]!, O[v * 3 + 1]!, O[v * 3 + 2]!]
    const c = p.map((x, d) => Math.floor((x - lo[d]!) / cell))
    let best = Infinity
    for (let r = 0; r < cells && best > ((r - 1) * cell) ** 2; r++) {
      for (let x = c[0]! - r; x <= c[0]! + r; x++)
        for (let y = c[1]! - r; y <= c[1]! + r; y++)
          for (let z = c[2]! - r; z <= c[2]! + r; z++) {
            if (Math.max(Math.abs(x - c[0]!), Math.abs(y - c[1]!), Math.abs(z - c[2]!)) !== r) continue
            for (const f of grid.get(key(x, y, z)) ?? [])
              best = Math.min(best, closestDistanceSq(p, simplified, f))
          }
    }
    const d = Math.sqrt(best) / diagonal
    max = Math.max(max, d)
    sum += d
    n++
  }
  return { max, mean: sum / n }
}
