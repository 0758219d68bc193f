// glTF documents that each use one part of the format real exporters write and the bench's
// generated models do not: other index types, no indices, interleaved and offset views, sparse
// accessors, quantized input, strips and fans, lines and points beside triangles, matrices and
// mirrors, cameras and lights, several scenes, material extensions and variants, GPU instancing,
// skins without inverse bind matrices, STEP and CUBICSPLINE tracks, embedded buffers, vertex
// colours, far offsets, shared accessors, unknown extensions. Written byte by byte here (not
// through glTF-Transform, which would normalize most of them away) for test/mesh/gltf-features.test.ts.
import { deflateSync } from 'node:zlib'

const FLOAT = 5126
const BYTE = 5120
const UNSIGNED_BYTE = 5121
const SHORT = 5122
const UNSIGNED_SHORT = 5123
const UNSIGNED_INT = 5125
const ARRAY_BUFFER = 34962
const ELEMENT_ARRAY_BUFFER = 34963

type Json = Record<string, unknown>
type Typed = Float32Array | Uint32Array | Uint16Array | Uint8Array | Int16Array | Int8Array

const componentType = (data: Typed): number =>
  data instanceof Float32Array
    ? FLOAT
    : data instanceof Uint32Array
      ? UNSIGNED_INT
      : data instanceof Uint16Array
        ? UNSIGNED_SHORT
        : data instanceof Uint8Array
          ? UNSIGNED_BYTE
          : data instanceof Int16Array
            ? SHORT
            : BYTE

const widths: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }

/** A glTF document under construction: its JSON, and one binary buffer. */
export class Gltf {
  json: Json & {
    accessors: Json[]
    bufferViews: Json[]
    meshes: Json[]
    nodes: Json[]
    materials: Json[]
    scenes: Json[]
  } = {
    asset: { version: '2.0', generator: 'kiln gltf-features test' },
    accessors: [],
    bufferViews: [],
    meshes: [],
    nodes: [],
    materials: [],
    scenes: [],
  }
  private chunks: Uint8Array[] = []
  private length = 0

  /** `bytes` as a buffer view (aligned to 4), with its target and stride where given. */
  view(bytes: Uint8Array, target?: number, byteStride?: number): number {
    const pad = (4 - (this.length % 4)) % 4
    if (pad) this.push(new Uint8Array(pad))
    const byteOffset = this.length
    this.push(bytes)
    this.json.bufferViews.push({
      buffer: 0,
      byteOffset,
      byteLength: bytes.length,
      ...(target !== undefined && { target }),
      ...(byteStride !== undefined && { byteStride }),
    })
    return this.json.bufferViews.length - 1
  }

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes)
    this.length += bytes.length
  }

  /** `data` as an accessor of `type` in a view of its own, with min/max for positions. */
  accessor(
    data: Typed,
    type: string,
    options: { target?: number; normalized?: boolean; bounds?: boolean } = {},
  ) {
    const view = this.view(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), options.target)
    return this.accessorIn(view, 0, data, type, options)
  }

  /** An accessor over `data`'s values already stored in `view` at `byteOffset`. */
  accessorIn(
    view: number,
    byteOffset: number,
    data: Typed,
    type: string,
    options: { normalized?: boolean; bounds?: boolean } = {},
  ) {
    const width = widths[type]!
    const accessor: Json = {
      bufferView: view,
      byteOffset,
      componentType: componentType(data),
      count: data.length / width,
      type,
      ...(options.normalized && { normalized: true }),
    }
    if (options.bounds) Object.assign(accessor, bounds(data, width))
    this.json.accessors.push(accessor)
    return this.json.accessors.length - 1
  }

  /** Float positions with their bounds, as glTF requires. */
  positions(data: Float32Array): number {
    return this.accessor(data, 'VEC3', { target: ARRAY_BUFFER, bounds: true })
  }

  indices(data: Uint32Array | Uint16Array | Uint8Array): number {
    return this.accessor(data, 'SCALAR', { target: ELEMENT_ARRAY_BUFFER })
  }

  mesh(primitives: Json[], extra: Json = {}): number {
    this.json.meshes.push({ primitives, ...extra })
    return this.json.meshes.length - 1
  }

  node(node: Json): number {
    this.json.nodes.push(node)
    return this.json.nodes.length - 1
  }

  material(material: Json): number {
    this.json.materials.push(material)
    return this.json.materials.length - 1
  }

  scene(nodes: number[]): number {
    this.json.scenes.push({ nodes })
    this.json.scene ??= 0
    return this.json.scenes.length - 1
  }

  useExtension(name: string, required = false): void {
    const lists = required ? ['extensionsUsed', 'extensionsRequired'] : ['extensionsUsed']
    for (const key of lists) {
      const list = (this.json[key] as string[] | undefined) ?? []
      if (!list.includes(name)) list.push(name)
      this.json[key] = list
    }
  }

  private binary(): Uint8Array {
    const out = new Uint8Array(this.length)
    let at = 0
    for (const chunk of this.chunks) {
      out.set(chunk, at)
      at += chunk.length
    }
    return out
  }

  private finished(): Json {
    const json: Json = { ...this.json, buffers: [{ byteLength: this.length }] }
    for (const key of ['materials', 'meshes', 'accessors', 'bufferViews', 'scenes'] as const)
      if (this.json[key].length === 0) delete json[key]
    return json
  }

  glb(): Uint8Array {
    const text = new TextEncoder().encode(JSON.stringify(this.finished()))
    const jsonLength = Math.ceil(text.length / 4) * 4
    const bin = this.binary()
    const binLength = Math.ceil(bin.length / 4) * 4
    const out = new Uint8Array(12 + 8 + jsonLength + 8 + binLength)
    const view = new DataView(out.buffer)
    view.setUint32(0, 0x46546c67, true)
    view.setUint32(4, 2, true)
    view.setUint32(8, out.length, true)
    view.setUint32(12, jsonLength, true)
    view.setUint32(16, 0x4e4f534a, true)
    out.fill(0x20, 20, 20 + jsonLength)
    out.set(text, 20)
    view.setUint32(20 + jsonLength, binLength, true)
    view.setUint32(24 + jsonLength, 0x004e4942, true)
    out.set(bin, 28 + jsonLength)
    return out
  }

  /** The document as one .gltf whose buffer is a data: URI. */
  embedded(): Uint8Array {
    const json = this.finished()
    const base64 = Buffer.from(this.binary()).toString('base64')
    json.buffers = [{ byteLength: this.length, uri: `data:application/octet-stream;base64,${base64}` }]
    return new TextEncoder().encode(JSON.stringify(json))
  }
}

function bounds(data: Typed, width: number): { min: number[]; max: number[] } {
  const min = new Array<number>(width).fill(Infinity)
  const max = new Array<number>(width).fill(-Infinity)
  for (let i = 0; i < data.length; i++) {
    const k = i % width
    min[k] = Math.min(min[k]!, data[i]!)
    max[k] = Math.max(max[k]!, data[i]!)
  }
  return { min, max }
}

/** A bumpy sphere: positions, normals, UVs, triangle indices. */
export function sphere(rings = 16, segments = 32, radius = 1, offset: [number, number, number] = [0, 0, 0]) {
  const positions: number[] = []
  const normals: number[] = []
  const uvs: number[] = []
  for (let r = 0; r <= rings; r++) {
    const phi = (Math.PI * r) / rings
    for (let s = 0; s <= segments; s++) {
      const theta = (2 * Math.PI * s) / segments
      const n = [Math.sin(phi) * Math.cos(theta), Math.cos(phi), Math.sin(phi) * Math.sin(theta)]
      const bump = radius * (1 + 0.04 * Math.sin(5 * phi) * Math.cos(3 * theta))
      positions.push(offset[0] + bump * n[0]!, offset[1] + bump * n[1]!, offset[2] + bump * n[2]!)
      normals.push(n[0]!, n[1]!, n[2]!)
      uvs.push(s / segments, r / rings)
    }
  }
  const indices: number[] = []
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s
      const b = a + segments + 1
      if (r > 0) indices.push(a, b, a + 1)
      if (r < rings - 1) indices.push(a + 1, b, b + 1)
    }
  }
  return {
    positions: Float32Array.from(positions),
    normals: Float32Array.from(normals),
    uvs: Float32Array.from(uvs),
    indices: Uint32Array.from(indices),
  }
}

type Sphere = ReturnType<typeof sphere>

/** The sphere's attributes as accessors of their own (float). */
function attributes(g: Gltf, s: Sphere): Json {
  return {
    POSITION: g.positions(s.positions),
    NORMAL: g.accessor(s.normals, 'VEC3', { target: ARRAY_BUFFER }),
    TEXCOORD_0: g.accessor(s.uvs, 'VEC2', { target: ARRAY_BUFFER }),
  }
}

/** A 4×4 RGBA PNG of one colour per quadrant. */
export function tinyPng(): Uint8Array {
  const size = 4
  const raw = new Uint8Array(size * (1 + size * 4))
  for (let y = 0; y < size; y++) {
    raw[y * (1 + size * 4)] = 0
    for (let x = 0; x < size; x++) {
      const at = y * (1 + size * 4) + 1 + x * 4
      raw.set([x < 2 ? 255 : 30, y < 2 ? 200 : 60, 90, 255], at)
    }
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (bytes: Uint8Array) => {
    let c = 0xffffffff
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length)
    const view = new DataView(out.buffer)
    view.setUint32(0, data.length)
    out.set(new TextEncoder().encode(type), 4)
    out.set(data, 8)
    view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)))
    return out
  }
  const header = new Uint8Array(13)
  new DataView(header.buffer).setUint32(0, size)
  new DataView(header.buffer).setUint32(4, size)
  header.set([8, 6, 0, 0, 0], 8)
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', new Uint8Array(deflateSync(raw))),
    chunk('IEND', new Uint8Array(0)),
  ]
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** One feature model: its name, file extension, bytes, and what a reader should find in it. */
export interface FeatureModel {
  name: string
  extension: 'glb' | 'gltf'
  bytes: Uint8Array
  /** Triangles the file stores (strips and fans as their triangles; lines and points not). */
  storedTriangles: number
  /** Triangles as the default scene places them: a mesh drawn twice counts twice. */
  placedTriangles: number
}

function single(g: Gltf, primitive: Json, node: Json = {}): void {
  g.scene([g.node({ mesh: g.mesh([primitive]), ...node })])
}

const triangleCount = (s: Sphere) => s.indices.length / 3

/** Every feature model. */
export function featureModels(): FeatureModel[] {
  const models: FeatureModel[] = []
  const add = (
    name: string,
    g: Gltf,
    placedTriangles: number,
    storedTriangles = placedTriangles,
    extension: 'glb' | 'gltf' = 'glb',
  ) =>
    models.push({
      name,
      extension,
      bytes: extension === 'glb' ? g.glb() : g.embedded(),
      storedTriangles,
      placedTriangles,
    })

  {
    // Byte indices (a small mesh) and 32-bit indices.
    const s = sphere(6, 12)
    const g = new Gltf()
    single(g, { attributes: attributes(g, s), indices: g.indices(Uint8Array.from(s.indices)) })
    add('byte-indices', g, triangleCount(s))
    const h = new Gltf()
    const big = sphere()
    single(h, { attributes: attributes(h, big), indices: h.indices(big.indices) })
    add('int-indices', h, triangleCount(big))
  }
  {
    // No indices: every three vertices a triangle.
    const s = sphere()
    const flat = (data: Float32Array, width: number) =>
      Float32Array.from(
        Array.from(s.indices).flatMap((v) => Array.from(data.subarray(v * width, v * width + width))),
      )
    const g = new Gltf()
    single(g, {
      attributes: {
        POSITION: g.positions(flat(s.positions, 3)),
        NORMAL: g.accessor(flat(s.normals, 3), 'VEC3', { target: ARRAY_BUFFER }),
      },
    })
    add('no-indices', g, triangleCount(s))
  }
  {
    // Interleaved position, normal and UV (32 bytes a vertex) in one view, accessors at offsets.
    const s = sphere()
    const count = s.positions.length / 3
    const interleaved = new Float32Array(count * 8)
    for (let v = 0; v < count; v++) {
      interleaved.set(s.positions.subarray(v * 3, v * 3 + 3), v * 8)
      interleaved.set(s.normals.subarray(v * 3, v * 3 + 3), v * 8 + 3)
      interleaved.set(s.uvs.subarray(v * 2, v * 2 + 2), v * 8 + 6)
    }
    const g = new Gltf()
    const view = g.view(new Uint8Array(interleaved.buffer), ARRAY_BUFFER, 32)
    const position = g.accessorIn(view, 0, s.positions, 'VEC3', { bounds: true })
    const normal = g.accessorIn(view, 12, s.normals, 'VEC3')
    const uv = g.accessorIn(view, 24, s.uvs, 'VEC2')
    // The indices after some unrelated bytes, at an offset into their view.
    const indices = new Uint16Array(s.indices.length + 2)
    indices.set(Uint16Array.from(s.indices), 2)
    const indexView = g.view(new Uint8Array(indices.buffer), ELEMENT_ARRAY_BUFFER)
    const index = g.accessorIn(indexView, 4, Uint16Array.from(s.indices), 'SCALAR')
    single(g, { attributes: { POSITION: position, NORMAL: normal, TEXCOORD_0: uv }, indices: index })
    add('interleaved', g, triangleCount(s))
  }
  {
    // Sparse positions: a stored sphere with a handful of vertices pulled outward by sparse values;
    // and a morph target whose deltas are sparse alone, with no view (most exporters' targets).
    const s = sphere()
    const g = new Gltf()
    const attrs = attributes(g, s)
    const moved = [40, 41, 42, 200, 201]
    const values = Float32Array.from(
      moved.flatMap((v) => Array.from(s.positions.subarray(v * 3, v * 3 + 3)).map((x) => x * 1.3)),
    )
    const position = g.json.accessors[attrs.POSITION as number]!
    const after = Float32Array.from(s.positions)
    for (const [i, v] of moved.entries()) after.set(values.subarray(i * 3, i * 3 + 3), v * 3)
    // The sparse part of an accessor: `moved` vertices take `data`.
    const sparse = (data: Float32Array) => ({
      count: moved.length,
      indices: {
        bufferView: g.view(new Uint8Array(Uint16Array.from(moved).buffer)),
        componentType: UNSIGNED_SHORT,
      },
      values: { bufferView: g.view(new Uint8Array(data.buffer)) },
    })
    Object.assign(position, bounds(after, 3), { sparse: sparse(values) })
    const deltas = Float32Array.from(moved.flatMap(() => [0, 0.2, 0]))
    g.json.accessors.push({
      componentType: FLOAT,
      count: s.positions.length / 3,
      type: 'VEC3',
      min: [0, 0, 0],
      max: [0, 0.2, 0],
      sparse: sparse(deltas),
    })
    const target = g.json.accessors.length - 1
    g.scene([
      g.node({
        mesh: g.mesh(
          [
            {
              attributes: attrs,
              indices: g.indices(Uint16Array.from(s.indices)),
              targets: [{ POSITION: target }],
            },
          ],
          {
            weights: [0.5],
            extras: { targetNames: ['lift'] },
          },
        ),
      }),
    ])
    add('sparse', g, triangleCount(s))
  }
  {
    // KHR_mesh_quantization input: 16-bit positions scaled back by the node, normalized byte
    // normals and normalized 16-bit UVs.
    const s = sphere()
    const g = new Gltf()
    const position = Int16Array.from(s.positions, (x) => Math.round(x * 10_000))
    const normal = Int8Array.from(
      Array.from(s.normals).flatMap((x, i) =>
        i % 3 === 2 ? [Math.round(x * 127), 0] : [Math.round(x * 127)],
      ),
    )
    const uv = Uint16Array.from(s.uvs, (x) => Math.round(x * 65_535))
    // Normals padded to 4 bytes a vertex, as the format requires of byte attributes.
    const normalView = g.view(new Uint8Array(normal.buffer), ARRAY_BUFFER, 4)
    g.json.accessors.push({
      bufferView: normalView,
      componentType: BYTE,
      normalized: true,
      count: s.normals.length / 3,
      type: 'VEC3',
    })
    const normalAccessor = g.json.accessors.length - 1
    const positionPadded = new Int16Array((s.positions.length / 3) * 4)
    for (let v = 0; v < s.positions.length / 3; v++)
      positionPadded.set(position.subarray(v * 3, v * 3 + 3), v * 4)
    const positionView = g.view(new Uint8Array(positionPadded.buffer), ARRAY_BUFFER, 8)
    g.json.accessors.push({
      bufferView: positionView,
      componentType: SHORT,
      count: s.positions.length / 3,
      type: 'VEC3',
      ...bounds(position, 3),
    })
    const positionAccessor = g.json.accessors.length - 1
    single(
      g,
      {
        attributes: {
          POSITION: positionAccessor,
          NORMAL: normalAccessor,
          TEXCOORD_0: g.accessor(uv, 'VEC2', { target: ARRAY_BUFFER, normalized: true }),
        },
        indices: g.indices(Uint16Array.from(s.indices)),
      },
      { scale: [1e-4, 1e-4, 1e-4] },
    )
    g.useExtension('KHR_mesh_quantization', true)
    add('quantized-input', g, triangleCount(s))
  }
  {
    // A triangle strip (a grid row by row, restarted by degenerate joins) and a fan (a disc).
    const g = new Gltf()
    const columns = 20
    const rows = 10
    const grid: number[] = []
    for (let r = 0; r <= rows; r++)
      for (let c = 0; c <= columns; c++) grid.push(c / columns, r / rows, 0.1 * Math.sin(c + r))
    const strip: number[] = []
    for (let r = 0; r < rows; r++) {
      if (r > 0) strip.push(strip.at(-1)!, r * (columns + 1))
      for (let c = 0; c <= columns; c++) strip.push(r * (columns + 1) + c, (r + 1) * (columns + 1) + c)
    }
    const fan: number[] = [0, 0, 2]
    for (let k = 0; k <= 24; k++)
      fan.push(Math.cos((2 * Math.PI * k) / 24), Math.sin((2 * Math.PI * k) / 24), 2)
    const stripPrimitive = {
      attributes: { POSITION: g.positions(Float32Array.from(grid)) },
      indices: g.indices(Uint16Array.from(strip)),
      mode: 5,
    }
    const fanPrimitive = { attributes: { POSITION: g.positions(Float32Array.from(fan)) }, mode: 6 }
    g.scene([g.node({ mesh: g.mesh([stripPrimitive, fanPrimitive]) })])
    // Strip triangles: each row's 2·columns, plus four degenerate ones at each of the joins.
    add('strip-and-fan', g, rows * 2 * columns + (rows - 1) * 4 + 24)
  }
  {
    // Lines (listed first), the triangles, coloured points and a line loop, all in one mesh.
    const s = sphere()
    const g = new Gltf()
    const lines = Float32Array.from([0, 0, 0, 0, 2, 0, 0, 2, 0, 1, 2, 0])
    const points = Float32Array.from([3, 0, 0, 3, 1, 0, 3, 2, 0])
    const loop = Float32Array.from([-2, -2, 0, -1, -2, 0, -1, -1, 0, -2, -1, 0])
    g.scene([
      g.node({
        mesh: g.mesh([
          { attributes: { POSITION: g.positions(lines) }, mode: 1 },
          { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) },
          {
            attributes: {
              POSITION: g.positions(points),
              COLOR_0: g.accessor(Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), 'VEC3'),
            },
            mode: 0,
          },
          {
            attributes: { POSITION: g.positions(loop) },
            indices: g.indices(Uint8Array.from([0, 1, 2, 3])),
            mode: 2,
          },
        ]),
      }),
    ])
    add('lines-and-points', g, triangleCount(s))
    // Edges as a mesh of their own, drawn by two nodes (CAD exports), beside a triangle mesh.
    const h = new Gltf()
    const edges = h.mesh([
      { attributes: { POSITION: h.positions(Float32Array.from([0, 0, 0, 1, 0, 0, 1, 1, 0])) }, mode: 3 },
    ])
    const solid = h.node({
      mesh: h.mesh([{ attributes: attributes(h, s), indices: h.indices(Uint16Array.from(s.indices)) }]),
    })
    h.scene([
      solid,
      h.node({ mesh: edges, translation: [2, 0, 0] }),
      h.node({ mesh: edges, translation: [-2, 0, 0], scale: [2, 2, 2] }),
    ])
    add('edge-mesh', h, triangleCount(s))
  }
  {
    // A matrix node, a mirrored instance of the same mesh (negative scale), and a parent that
    // both hang under, scaled and turned.
    const s = sphere()
    const g = new Gltf()
    const mesh = g.mesh([{ attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) }])
    const matrix = g.node({ mesh, matrix: [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 3, 0, 0, 1] })
    const mirrored = g.node({ mesh, scale: [-1, 1, 1], translation: [-3, 0, 0] })
    const parent = g.node({
      children: [matrix, mirrored],
      rotation: [0, 0.3826834, 0, 0.9238795],
      scale: [0.5, 0.5, 0.5],
    })
    g.scene([parent])
    add('matrix-and-mirror', g, 2 * triangleCount(s), triangleCount(s))
  }
  {
    // A camera and a punctual light on nodes of their own, and one on the mesh's node.
    const s = sphere()
    const g = new Gltf()
    g.json.cameras = [
      { type: 'perspective', perspective: { yfov: 0.8, znear: 0.1, zfar: 100, aspectRatio: 1.5 } },
    ]
    g.json.extensions = {
      KHR_lights_punctual: {
        lights: [{ type: 'point', color: [1, 0.9, 0.8], intensity: 20 }, { type: 'directional' }],
      },
    }
    g.useExtension('KHR_lights_punctual')
    const camera = g.node({ name: 'camera', camera: 0, translation: [0, 1, 5] })
    const light = g.node({
      name: 'lamp',
      translation: [2, 3, 1],
      extensions: { KHR_lights_punctual: { light: 0 } },
    })
    const sun = g.node({
      name: 'sun-on-mesh',
      mesh: g.mesh([{ attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) }]),
      extensions: { KHR_lights_punctual: { light: 1 } },
    })
    g.scene([camera, light, sun])
    add('camera-and-lights', g, triangleCount(s))
  }
  {
    // Two scenes; the second is the default, and only it holds the larger mesh.
    const small = sphere(4, 8)
    const big = sphere()
    const g = new Gltf()
    const a = g.node({
      mesh: g.mesh([
        { attributes: attributes(g, small), indices: g.indices(Uint16Array.from(small.indices)) },
      ]),
    })
    const b = g.node({
      mesh: g.mesh([{ attributes: attributes(g, big), indices: g.indices(Uint16Array.from(big.indices)) }]),
    })
    g.scene([a])
    g.scene([b])
    g.json.scene = 1
    add('second-scene', g, triangleCount(big), triangleCount(big) + triangleCount(small))
  }
  {
    // A textured material with a second UV set for its occlusion, KHR_texture_transform on the
    // colour, and other materials with emissive strength, clearcoat and unlit.
    const s = sphere()
    const g = new Gltf()
    g.json.images = [{ bufferView: g.view(tinyPng()), mimeType: 'image/png' }]
    g.json.samplers = [{ magFilter: 9729, minFilter: 9987, wrapS: 10497, wrapT: 33648 }]
    g.json.textures = [{ source: 0, sampler: 0 }]
    const uv1 = Float32Array.from(s.uvs, (x) => x * 0.5 + 0.25)
    const textured = g.material({
      name: 'textured',
      pbrMetallicRoughness: {
        baseColorTexture: {
          index: 0,
          extensions: { KHR_texture_transform: { offset: [0.1, 0.2], scale: [2, 3], rotation: 0.3 } },
        },
      },
      occlusionTexture: { index: 0, texCoord: 1, strength: 0.7 },
    })
    const glowing = g.material({
      name: 'glowing',
      emissiveFactor: [1, 0.5, 0],
      extensions: { KHR_materials_emissive_strength: { emissiveStrength: 4 } },
    })
    const coated = g.material({
      name: 'coated',
      extensions: { KHR_materials_clearcoat: { clearcoatFactor: 0.8, clearcoatRoughnessFactor: 0.1 } },
    })
    const unlit = g.material({ name: 'unlit', extensions: { KHR_materials_unlit: {} } })
    for (const name of [
      'KHR_texture_transform',
      'KHR_materials_emissive_strength',
      'KHR_materials_clearcoat',
      'KHR_materials_unlit',
    ])
      g.useExtension(name)
    const nodes = [textured, glowing, coated, unlit].map((material, k) => {
      const part = sphere(16, 32, 1, [3 * k, 0, 0])
      const attrs = attributes(g, part)
      if (material === textured) attrs.TEXCOORD_1 = g.accessor(uv1, 'VEC2', { target: ARRAY_BUFFER })
      return g.node({
        mesh: g.mesh([{ attributes: attrs, indices: g.indices(Uint16Array.from(part.indices)), material }]),
      })
    })
    g.scene(nodes)
    add('materials', g, 4 * triangleCount(s))
  }
  {
    // KHR_materials_variants: one primitive whose material a viewer switches between two.
    const s = sphere()
    const g = new Gltf()
    const red = g.material({ name: 'red', pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } })
    const blue = g.material({ name: 'blue', pbrMetallicRoughness: { baseColorFactor: [0, 0, 1, 1] } })
    g.json.extensions = { KHR_materials_variants: { variants: [{ name: 'Red' }, { name: 'Blue' }] } }
    g.useExtension('KHR_materials_variants')
    single(g, {
      attributes: attributes(g, s),
      indices: g.indices(Uint16Array.from(s.indices)),
      material: red,
      extensions: {
        KHR_materials_variants: {
          mappings: [
            { material: red, variants: [0] },
            { material: blue, variants: [1] },
          ],
        },
      },
    })
    add('material-variants', g, triangleCount(s))
  }
  {
    // EXT_mesh_gpu_instancing: one mesh placed ten times by its node.
    const s = sphere(8, 16)
    const g = new Gltf()
    const count = 10
    const translations = Float32Array.from({ length: count * 3 }, (_, i) =>
      i % 3 === 0 ? Math.floor(i / 3) * 3 : 0,
    )
    const scales = Float32Array.from({ length: count * 3 }, (_, i) => 1 + 0.1 * Math.floor(i / 3))
    const rotations = Float32Array.from({ length: count * 4 }, (_, i) => (i % 4 === 3 ? 1 : 0))
    single(
      g,
      { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) },
      {
        extensions: {
          EXT_mesh_gpu_instancing: {
            attributes: {
              TRANSLATION: g.accessor(translations, 'VEC3'),
              ROTATION: g.accessor(rotations, 'VEC4'),
              SCALE: g.accessor(scales, 'VEC3'),
            },
          },
        },
      },
    )
    g.useExtension('EXT_mesh_gpu_instancing', true)
    add('gpu-instancing', g, count * triangleCount(s), triangleCount(s))
  }
  {
    // A skin without inverse bind matrices (identity), 16-bit joints, normalized byte weights; a
    // STEP translation track on the root joint and a CUBICSPLINE scale track on the other.
    const s = sphere()
    const g = new Gltf()
    const count = s.positions.length / 3
    const joints = new Uint16Array(count * 4)
    const weights = new Uint8Array(count * 4)
    for (let v = 0; v < count; v++) {
      const up = Math.min(1, Math.max(0, (s.positions[v * 3 + 1]! + 1) / 2))
      joints.set([0, 1, 0, 0], v * 4)
      const w1 = Math.round(up * 255)
      weights.set([255 - w1, w1, 0, 0], v * 4)
    }
    const attrs = attributes(g, s)
    attrs.JOINTS_0 = g.accessor(joints, 'VEC4', { target: ARRAY_BUFFER })
    attrs.WEIGHTS_0 = g.accessor(weights, 'VEC4', { target: ARRAY_BUFFER, normalized: true })
    const tip = g.node({ name: 'tip', translation: [0, 0, 0] })
    const root = g.node({ name: 'root', children: [tip] })
    const skinned = g.node({
      mesh: g.mesh([{ attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)) }]),
      skin: 0,
    })
    g.json.skins = [{ joints: [root, tip], skeleton: root }]
    const times = Float32Array.from([0, 0.5, 1, 1.5])
    const steps = Float32Array.from([0, 0, 0, 0, 0.2, 0, 0, 0.4, 0, 0, 0, 0])
    // CUBICSPLINE: in-tangent, value, out-tangent per key.
    const cubic = Float32Array.from([
      0, 0, 0, 1, 1, 1, 0.5, 0.5, 0.5, 0, 0, 0, 1.4, 1.4, 1.4, 0, 0, 0, 0, 0, 0, 1.2, 1.2, 1.2, -0.2, -0.2,
      -0.2, 0, 0, 0, 1, 1, 1, 0, 0, 0,
    ])
    const input = g.accessor(times, 'SCALAR', { bounds: true })
    g.json.animations = [
      {
        name: 'wave',
        samplers: [
          { input, output: g.accessor(steps, 'VEC3'), interpolation: 'STEP' },
          { input, output: g.accessor(cubic, 'VEC3'), interpolation: 'CUBICSPLINE' },
        ],
        channels: [
          { sampler: 0, target: { node: root, path: 'translation' } },
          { sampler: 1, target: { node: tip, path: 'scale' } },
        ],
      },
    ]
    g.scene([root, skinned])
    add('skin-step-cubic', g, triangleCount(s))
  }
  {
    // A .gltf whose buffer is a data: URI.
    const s = sphere()
    const g = new Gltf()
    single(g, { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) })
    add('data-uri', g, triangleCount(s), triangleCount(s), 'gltf')
  }
  {
    // Vertex colours: three floats on one primitive, four normalized shorts on another.
    const a = sphere()
    const b = sphere(16, 32, 1, [3, 0, 0])
    const g = new Gltf()
    const rgb = Float32Array.from(a.normals, (x) => Math.abs(x))
    const rgba = Uint16Array.from({ length: (b.positions.length / 3) * 4 }, (_, i) =>
      i % 4 === 3 ? 65_535 : (i * 977) % 65_536,
    )
    const first = attributes(g, a)
    first.COLOR_0 = g.accessor(rgb, 'VEC3', { target: ARRAY_BUFFER })
    const second = attributes(g, b)
    second.COLOR_0 = g.accessor(rgba, 'VEC4', { target: ARRAY_BUFFER, normalized: true })
    g.scene([
      g.node({
        mesh: g.mesh([
          { attributes: first, indices: g.indices(Uint16Array.from(a.indices)) },
          { attributes: second, indices: g.indices(Uint16Array.from(b.indices)) },
        ]),
      }),
    ])
    add('vertex-colours', g, triangleCount(a) + triangleCount(b))
  }
  {
    // A small object far from the origin (survey and map coordinates).
    const s = sphere(16, 32, 0.5, [250_000, 80, -310_000])
    const g = new Gltf()
    single(g, { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) })
    add('far-offset', g, triangleCount(s))
  }
  {
    // Two meshes over one shared vertex accessor, each drawing half of its triangles (Sketchfab
    // and some CAD exporters write one vertex pool per file).
    const s = sphere()
    const g = new Gltf()
    const attrs = attributes(g, s)
    const half = Math.floor(triangleCount(s) / 2) * 3
    const first = g.indices(Uint16Array.from(s.indices.subarray(0, half)))
    const second = g.indices(Uint16Array.from(s.indices.subarray(half)))
    const top = g.node({ mesh: g.mesh([{ attributes: attrs, indices: first }]) })
    const bottom = g.node({
      mesh: g.mesh([{ attributes: attrs, indices: second }]),
      translation: [0, -0.01, 0],
    })
    g.scene([top, bottom])
    add('shared-vertices', g, triangleCount(s))
  }
  {
    // An extension nobody here knows, used but not required: on the root, a node and a material.
    const s = sphere()
    const g = new Gltf()
    g.useExtension('VENDOR_custom_data')
    const material = g.material({ name: 'custom', extensions: { VENDOR_custom_data: { tag: 7 } } })
    single(
      g,
      { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)), material },
      { extensions: { VENDOR_custom_data: { id: 'a' } }, extras: { note: 'kept?' } },
    )
    g.json.extensions = { VENDOR_custom_data: { version: 1 } }
    add('unknown-extension', g, triangleCount(s))
  }
  {
    // No scenes at all (valid glTF: nothing says what to show), one node with a mesh.
    const s = sphere()
    const g = new Gltf()
    g.node({
      mesh: g.mesh([{ attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) }]),
    })
    add('no-scenes', g, triangleCount(s))
  }
  {
    // A texture sampled through the second UV set only; the first set is there but unused.
    const s = sphere()
    const g = new Gltf()
    g.json.images = [{ bufferView: g.view(tinyPng()), mimeType: 'image/png' }]
    g.json.textures = [{ source: 0 }]
    const material = g.material({ pbrMetallicRoughness: { baseColorTexture: { index: 0, texCoord: 1 } } })
    const attrs = attributes(g, s)
    attrs.TEXCOORD_1 = g.accessor(
      Float32Array.from(s.uvs, (x) => 3 * x - 1),
      'VEC2',
      { target: ARRAY_BUFFER },
    )
    single(g, { attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)), material })
    add('second-uv-set', g, triangleCount(s))
  }
  {
    // Morph targets that move normals and tangents too, and a node that overrides the weights;
    // a normal-mapped material so the tangents are used.
    const s = sphere()
    const g = new Gltf()
    g.json.images = [{ bufferView: g.view(tinyPng()), mimeType: 'image/png' }]
    g.json.textures = [{ source: 0 }]
    const material = g.material({ normalTexture: { index: 0 } })
    const attrs = attributes(g, s)
    const count = s.positions.length / 3
    attrs.TANGENT = g.accessor(
      Float32Array.from({ length: count * 4 }, (_, i) => [1, 0, 0, 1][i % 4]!),
      'VEC4',
      { target: ARRAY_BUFFER },
    )
    const bulge = Float32Array.from(s.normals, (x) => x * 0.1)
    const turn = Float32Array.from(s.normals, (_, i) => (i % 3 === 0 ? 0.05 : 0))
    const tilt = Float32Array.from({ length: count * 3 }, (_, i) => (i % 3 === 1 ? 0.1 : 0))
    const targets = [
      {
        POSITION: g.accessor(bulge, 'VEC3', { bounds: true }),
        NORMAL: g.accessor(turn, 'VEC3'),
        TANGENT: g.accessor(tilt, 'VEC3'),
      },
    ]
    g.scene([
      g.node({
        mesh: g.mesh(
          [{ attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)), material, targets }],
          { weights: [0.2] },
        ),
        weights: [0.7],
      }),
    ])
    add('morph-normals-tangents', g, triangleCount(s))
  }
  {
    // Two sets of joints and weights (eight influences a vertex), and an orthographic camera.
    const s = sphere()
    const g = new Gltf()
    const count = s.positions.length / 3
    const attrs = attributes(g, s)
    const joints = (base: number) => Uint8Array.from({ length: count * 4 }, (_, i) => base + (i % 4))
    const weights = Float32Array.from({ length: count * 4 }, () => 0.125)
    attrs.JOINTS_0 = g.accessor(joints(0), 'VEC4', { target: ARRAY_BUFFER })
    attrs.WEIGHTS_0 = g.accessor(weights, 'VEC4', { target: ARRAY_BUFFER })
    attrs.JOINTS_1 = g.accessor(joints(4), 'VEC4', { target: ARRAY_BUFFER })
    attrs.WEIGHTS_1 = g.accessor(Float32Array.from(weights), 'VEC4', { target: ARRAY_BUFFER })
    const bones = Array.from({ length: 8 }, (_, k) =>
      g.node({ name: `bone${k}`, translation: [0, 0.1 * k, 0] }),
    )
    const root = g.node({ name: 'rig', children: bones })
    g.json.skins = [{ joints: bones }]
    g.json.cameras = [{ type: 'orthographic', orthographic: { xmag: 2, ymag: 2, znear: 0.1, zfar: 50 } }]
    const camera = g.node({ camera: 0, translation: [0, 0, 10] })
    const skinned = g.node({
      mesh: g.mesh([{ attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)) }]),
      skin: 0,
    })
    g.scene([root, skinned, camera])
    add('eight-influences', g, triangleCount(s))
  }
  // Tiny and huge: a sphere a micrometre across and one a thousand kilometres across.
  for (const [name, radius] of [
    ['micro-scale', 5e-7],
    ['huge-scale', 5e5],
  ] as const) {
    const s = sphere(16, 32, radius)
    const g = new Gltf()
    single(g, { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) })
    add(name, g, triangleCount(s))
  }
  {
    // Half the triangles degenerate (repeated corners, corners on one line), some twice over,
    // and vertices no triangle uses.
    const s = sphere()
    const g = new Gltf()
    const indices = Array.from(s.indices)
    const count = s.positions.length / 3
    for (let k = 0; k < 300; k++) indices.push(k % count, k % count, (k + 1) % count)
    for (let k = 0; k < 100; k++) indices.push(...indices.slice(k * 3, k * 3 + 3))
    const positions = new Float32Array(s.positions.length + 30)
    positions.set(s.positions)
    positions.fill(9, s.positions.length)
    single(g, {
      attributes: { POSITION: g.positions(positions) },
      indices: g.indices(Uint16Array.from(indices)),
    })
    add('degenerate-and-unused', g, indices.length / 3)
  }
  {
    // One mesh drawn by a skinned node and by a static one; an animated node carrying a mesh
    // beside static ones; morph weights animated with CUBICSPLINE keys.
    const s = sphere(8, 16)
    const g = new Gltf()
    const count = s.positions.length / 3
    const attrs = attributes(g, s)
    attrs.JOINTS_0 = g.accessor(new Uint8Array(count * 4), 'VEC4', { target: ARRAY_BUFFER })
    attrs.WEIGHTS_0 = g.accessor(
      Float32Array.from({ length: count * 4 }, (_, i) => (i % 4 === 0 ? 1 : 0)),
      'VEC4',
      { target: ARRAY_BUFFER },
    )
    const lift = g.accessor(
      Float32Array.from(s.normals, (x) => x * 0.2),
      'VEC3',
      { bounds: true },
    )
    const shared = g.mesh(
      [{ attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)), targets: [{ POSITION: lift }] }],
      { weights: [0] },
    )
    const bone = g.node({ name: 'bone' })
    g.json.skins = [{ joints: [bone] }]
    const skinned = g.node({ mesh: shared, skin: 0 })
    const still = g.node({ mesh: shared, translation: [3, 0, 0] })
    const plain = sphere(8, 16, 0.5)
    const plainMesh = g.mesh([
      { attributes: attributes(g, plain), indices: g.indices(Uint16Array.from(plain.indices)) },
    ])
    const moving = g.node({ mesh: plainMesh, translation: [0, 3, 0] })
    const fixed = g.node({ mesh: plainMesh, translation: [0, -3, 0] })
    const times = g.accessor(Float32Array.from([0, 1, 2]), 'SCALAR', { bounds: true })
    // CUBICSPLINE weights: in-tangent, value, out-tangent per key, one weight each.
    const weights = g.accessor(Float32Array.from([0, 0, 1, 0, 1, 0, -1, 0, 0]), 'SCALAR')
    const path = g.accessor(Float32Array.from([0, 3, 0, 1, 3, 0, 0, 4, 0]), 'VEC3')
    g.json.animations = [
      {
        samplers: [
          { input: times, output: weights, interpolation: 'CUBICSPLINE' },
          { input: times, output: path },
        ],
        channels: [
          { sampler: 0, target: { node: still, path: 'weights' } },
          { sampler: 1, target: { node: moving, path: 'translation' } },
        ],
      },
    ]
    g.scene([bone, skinned, still, moving, fixed])
    add(
      'shared-skinned-and-moving',
      g,
      4 * triangleCount(s) - 2 * (triangleCount(s) - triangleCount(plain)),
      2 * triangleCount(s) - (triangleCount(s) - triangleCount(plain)),
    )
  }
  {
    // Textures reached in other ways: a sheen texture inside an extension, and a transform that
    // overrides the texture coordinate set; two textures of one image with other samplers.
    const s = sphere()
    const g = new Gltf()
    g.json.images = [{ bufferView: g.view(tinyPng()), mimeType: 'image/png' }]
    g.json.samplers = [{}, { wrapS: 33071, wrapT: 33071 }]
    g.json.textures = [
      { source: 0, sampler: 0 },
      { source: 0, sampler: 1 },
    ]
    g.useExtension('KHR_materials_sheen')
    g.useExtension('KHR_texture_transform')
    const material = g.material({
      pbrMetallicRoughness: { baseColorTexture: { index: 1 } },
      emissiveTexture: { index: 0, extensions: { KHR_texture_transform: { texCoord: 1, scale: [4, 4] } } },
      extensions: { KHR_materials_sheen: { sheenColorFactor: [1, 1, 1], sheenColorTexture: { index: 0 } } },
    })
    const attrs = attributes(g, s)
    attrs.TEXCOORD_1 = g.accessor(
      Float32Array.from(s.uvs, (x) => 1 - x),
      'VEC2',
      { target: ARRAY_BUFFER },
    )
    single(g, { attributes: attrs, indices: g.indices(Uint16Array.from(s.indices)), material })
    add('texture-extensions', g, triangleCount(s))
  }
  return models
}

/** A model whose file requires an extension no reader here supports. */
export function requiredUnknownExtension(): Uint8Array {
  const s = sphere(4, 8)
  const g = new Gltf()
  single(g, { attributes: attributes(g, s), indices: g.indices(Uint16Array.from(s.indices)) })
  g.useExtension('VENDOR_needed_to_read', true)
  return g.glb()
}
