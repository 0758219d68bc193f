// Stands a generated GLB on the ground at unit size: its largest extent becomes 1, it is centred
// over the origin, and its lowest point rests on y = 0 (glTF is y-up). Done with one new root node
// carrying a scale and a translation, so vertex data, compression and textures stay untouched.
// Bounds come from the POSITION accessors' min/max, which glTF requires, through every node's
// transform; animated and skinned poses are taken as authored.

type Mat4 = number[]

interface GltfNode {
  children?: number[]
  mesh?: number
  matrix?: number[]
  translation?: number[]
  rotation?: number[]
  scale?: number[]
}

interface Gltf {
  scene?: number
  scenes?: { nodes?: number[] }[]
  nodes?: GltfNode[]
  meshes?: { primitives: { attributes: Record<string, number> }[] }[]
  accessors?: { min?: number[]; max?: number[] }[]
}

export interface Grounded {
  glb: Uint8Array
  /** The scale applied: 1 / the largest extent before. */
  scale: number
}

const identity = (): Mat4 => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Array<number>(16).fill(0)
  for (let column = 0; column < 4; column++)
    for (let row = 0; row < 4; row++)
      for (let k = 0; k < 4; k++) out[column * 4 + row]! += a[k * 4 + row]! * b[column * 4 + k]!
  return out
}

function localMatrix(node: GltfNode): Mat4 {
  if (node.matrix?.length === 16) return node.matrix
  const [tx, ty, tz] = node.translation ?? [0, 0, 0]
  const [x, y, z, w] = node.rotation ?? [0, 0, 0, 1]
  const [sx, sy, sz] = node.scale ?? [1, 1, 1]
  // Column-major T * R * S, from the unit quaternion (x, y, z, w).
  return [
    (1 - 2 * (y! * y! + z! * z!)) * sx!,
    2 * (x! * y! + z! * w!) * sx!,
    2 * (x! * z! - y! * w!) * sx!,
    0,
    2 * (x! * y! - z! * w!) * sy!,
    (1 - 2 * (x! * x! + z! * z!)) * sy!,
    2 * (y! * z! + x! * w!) * sy!,
    0,
    2 * (x! * z! + y! * w!) * sz!,
    2 * (y! * z! - x! * w!) * sz!,
    (1 - 2 * (x! * x! + y! * y!)) * sz!,
    0,
    tx!,
    ty!,
    tz!,
    1,
  ]
}

function sceneBounds(gltf: Gltf, roots: number[]): { min: number[]; max: number[] } | null {
  const min = [Infinity, Infinity, Infinity]
  const max = [-Infinity, -Infinity, -Infinity]
  const visit = (index: number, parent: Mat4, depth: number) => {
    const node = gltf.nodes?.[index]
    if (!node || depth > 64) return
    const world = multiply(parent, localMatrix(node))
    for (const primitive of node.mesh === undefined ? [] : (gltf.meshes?.[node.mesh]?.primitives ?? [])) {
      const accessor = gltf.accessors?.[primitive.attributes.POSITION ?? -1]
      if (accessor?.min?.length !== 3 || accessor.max?.length !== 3) continue
      for (let corner = 0; corner < 8; corner++) {
        const p = [0, 1, 2].map((axis) =>
          (corner >> axis) & 1 ? accessor.max![axis]! : accessor.min![axis]!,
        )
        for (let axis = 0; axis < 3; axis++) {
          const value =
            world[axis]! * p[0]! + world[4 + axis]! * p[1]! + world[8 + axis]! * p[2]! + world[12 + axis]!
          min[axis] = Math.min(min[axis]!, value)
          max[axis] = Math.max(max[axis]!, value)
        }
      }
    }
    for (const child of node.children ?? []) visit(child, world, depth + 1)
  }
  for (const root of roots) visit(root, identity(), 0)
  return min[0] === Infinity ? null : { min, max }
}

function readGlb(glb: Uint8Array): { gltf: Gltf; bin: Uint8Array | null } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength)
  if (
    glb.byteLength < 20 ||
    view.getUint32(0, true) !== 0x46546c67 ||
    view.getUint32(16, true) !== 0x4e4f534a
  )
    throw new Error('not a GLB file')
  const jsonLength = view.getUint32(12, true)
  const gltf = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as Gltf
  const binStart = 20 + jsonLength
  const bin =
    binStart + 8 <= glb.byteLength
      ? glb.subarray(binStart + 8, binStart + 8 + view.getUint32(binStart, true))
      : null
  return { gltf, bin }
}

function writeGlb(gltf: Gltf, bin: Uint8Array | null): Uint8Array {
  const jsonBytes = new TextEncoder().encode(JSON.stringify(gltf))
  const jsonLength = Math.ceil(jsonBytes.length / 4) * 4
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0)
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  view.setUint32(0, 0x46546c67, true)
  view.setUint32(4, 2, true)
  view.setUint32(8, total, true)
  view.setUint32(12, jsonLength, true)
  view.setUint32(16, 0x4e4f534a, true)
  out.fill(0x20, 20, 20 + jsonLength)
  out.set(jsonBytes, 20)
  if (bin) {
    view.setUint32(20 + jsonLength, binLength, true)
    view.setUint32(24 + jsonLength, 0x004e4942, true)
    out.set(bin, 28 + jsonLength)
  }
  return out
}

/** The grounded model, or null when the file has no measurable geometry (left as it is). */
export function groundAtUnitSize(glb: Uint8Array): Grounded | null {
  const { gltf, bin } = readGlb(glb)
  const sceneIndex = gltf.scene ?? 0
  const scene = gltf.scenes?.[sceneIndex]
  const roots = scene?.nodes ?? []
  const bounds = sceneBounds(gltf, roots)
  if (!scene || !bounds) return null
  const extent = Math.max(...[0, 1, 2].map((axis) => bounds.max[axis]! - bounds.min[axis]!))
  if (!(extent > 0) || !Number.isFinite(extent)) return null
  const scale = 1 / extent
  const centre = (axis: number) => (bounds.min[axis]! + bounds.max[axis]!) / 2
  const nodes = gltf.nodes ?? []
  nodes.push({
    scale: [scale, scale, scale],
    translation: [-centre(0) * scale, -bounds.min[1]! * scale, -centre(2) * scale],
    children: roots,
  })
  gltf.nodes = nodes
  scene.nodes = [nodes.length - 1]
  return { glb: writeGlb(gltf, bin), scale }
}
