// A generated textured model for the texture tests and bench/mesh/textures.ts, made at run time
// (large binaries are never committed): two quads sharing a PBR material set. Textures:
//   0 colour: photograph-like fractal value noise over smooth gradients (what lossy codecs find hard),
//   1 normal map of a bumpy height field, 2 ORM (occlusion, roughness, metalness) map,
//   3 the colour image again with the same pixels but other PNG bytes (a duplicate to merge),
//   4 an image no texture uses (to be dropped).
import { crc32, deflateSync } from 'node:zlib'

/** A PNG of RGBA8 pixels; `level` is the zlib level, so equal pixels can give different bytes. */
export function encodePng(width: number, height: number, rgba: Uint8Array, level = 6): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(8 + data.length + 4)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 6, 0, 0, 0], 8)
  const rows = Buffer.alloc((width * 4 + 1) * height)
  for (let y = 0; y < height; y++) {
    rows[y * (width * 4 + 1)] = 0
    rows.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** Smooth value noise in [0, 1] on a lattice of `cell` pixels, from a seeded integer hash. */
function valueNoise(seed: number) {
  const hash = (x: number, y: number) => {
    let h = (x * 374761393 + y * 668265263 + seed * 2246822519) | 0
    h = Math.imul(h ^ (h >>> 13), 1274126177)
    return ((h ^ (h >>> 16)) >>> 0) / 4294967296
  }
  return (x: number, y: number, cell: number) => {
    const fx = x / cell
    const fy = y / cell
    const ix = Math.floor(fx)
    const iy = Math.floor(fy)
    const sx = (fx - ix) * (fx - ix) * (3 - 2 * (fx - ix))
    const sy = (fy - iy) * (fy - iy) * (3 - 2 * (fy - iy))
    const top = hash(ix, iy) * (1 - sx) + hash(ix + 1, iy) * sx
    const bottom = hash(ix, iy + 1) * (1 - sx) + hash(ix + 1, iy + 1) * sx
    return top * (1 - sy) + bottom * sy
  }
}

/** Fractal noise: octaves from `size / 8` pixels down to `finest`, each 0.6 times as strong. */
function fractal(seed: number, size: number, finest = 2) {
  const noise = valueNoise(seed)
  return (x: number, y: number) => {
    let sum = 0
    let weight = 0.5
    let total = 0
    for (let cell = size / 8; cell >= finest; cell /= 2) {
      sum += noise(x, y, cell) * weight
      total += weight
      weight *= 0.6
    }
    return sum / total
  }
}

const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)))

export interface TexturedImages {
  color: Uint8Array
  normal: Uint8Array
  orm: Uint8Array
}

export function texturePixels(size: number): TexturedImages {
  const n = size * size
  const color = new Uint8Array(n * 4)
  const normal = new Uint8Array(n * 4)
  const orm = new Uint8Array(n * 4)
  const hue = fractal(1, size)
  const detail = fractal(2, size)
  // Bumps a few texels wide at the finest: a normal map of pure pixel noise is not what models carry.
  const bumps = fractal(3, size, 8)
  const height = new Float32Array(n)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) height[y * size + x] = bumps(x, y)
  }
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = y * size + x
      const gx = x / size
      const gy = y / size
      const h = hue(x, y)
      const d = detail(x + 7919, y + 104729)
      color.set(
        [
          clamp(255 * (0.2 + 0.6 * gx) * (0.5 + h)),
          clamp(255 * (0.3 + 0.4 * gy) * (0.4 + d)),
          clamp(255 * (0.6 - 0.4 * gx * gy + 0.3 * (h - d))),
          255,
        ],
        i * 4,
      )
      const dx =
        (height[y * size + Math.min(x + 1, size - 1)]! - height[y * size + Math.max(x - 1, 0)]!) * size * 0.02
      const dy =
        (height[Math.min(y + 1, size - 1) * size + x]! - height[Math.max(y - 1, 0) * size + x]!) * size * 0.02
      const len = Math.hypot(dx, dy, 1)
      normal.set(
        [clamp(127.5 * (1 - dx / len)), clamp(127.5 * (1 - dy / len)), clamp(127.5 * (1 + 1 / len)), 255],
        i * 4,
      )
      const metal = (Math.floor(gx * 8) + Math.floor(gy * 8)) % 2 === 0 ? 255 : 0
      orm.set([clamp(255 * (0.4 + 0.6 * height[i]!)), clamp(255 * d), metal, 255], i * 4)
    }
  }
  return { color, normal, orm }
}

/** The model as GLB bytes with `size` x `size` textures (by default the noise content above). */
export function texturedGlb(size: number, pixels: TexturedImages = texturePixels(size)): Buffer {
  const { color, normal, orm } = pixels
  const images = [
    encodePng(size, size, color, 6),
    encodePng(size, size, normal),
    encodePng(size, size, orm),
    encodePng(size, size, color, 1),
    encodePng(2, 2, new Uint8Array(16).fill(200)),
  ]
  // Two quads side by side; each vertex: position, normal, uv.
  const quad = (x0: number) => [
    x0,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    x0 + 1,
    0,
    0,
    0,
    0,
    1,
    1,
    1,
    x0 + 1,
    1,
    0,
    0,
    0,
    1,
    1,
    0,
    x0,
    1,
    0,
    0,
    0,
    1,
    0,
    0,
  ]
  const vertices = Buffer.from(new Float32Array([...quad(0), ...quad(1.1)]).buffer)
  const indices = Buffer.from(new Uint16Array([0, 1, 2, 0, 2, 3]).buffer)
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)])
  const parts = [vertices, indices, ...images].map(pad)
  const offsets = parts.map((_, i) => parts.slice(0, i).reduce((s, p) => s + p.length, 0))
  const bin = Buffer.concat(parts)
  const views = [
    { buffer: 0, byteOffset: offsets[0], byteLength: vertices.length / 2, byteStride: 32, target: 34962 },
    {
      buffer: 0,
      byteOffset: offsets[0]! + vertices.length / 2,
      byteLength: vertices.length / 2,
      byteStride: 32,
      target: 34962,
    },
    { buffer: 0, byteOffset: offsets[1], byteLength: indices.length, target: 34963 },
    ...images.map((img, i) => ({ buffer: 0, byteOffset: offsets[i + 2], byteLength: img.length })),
  ]
  const attributes = (view: number) => [
    {
      bufferView: view,
      byteOffset: 0,
      componentType: 5126,
      count: 4,
      type: 'VEC3',
      min: [view * 1.1, 0, 0],
      max: [view * 1.1 + 1, 1, 0],
    },
    { bufferView: view, byteOffset: 12, componentType: 5126, count: 4, type: 'VEC3' },
    { bufferView: view, byteOffset: 24, componentType: 5126, count: 4, type: 'VEC2' },
  ]
  const material = (baseColor: number, name: string) => ({
    name,
    pbrMetallicRoughness: { baseColorTexture: { index: baseColor }, metallicRoughnessTexture: { index: 2 } },
    normalTexture: { index: 1 },
    occlusionTexture: { index: 2 },
  })
  const json = {
    asset: { version: '2.0', generator: 'kiln test/mesh/textures-model.ts' },
    scene: 0,
    scenes: [{ nodes: [0, 1] }],
    nodes: [
      { mesh: 0, name: 'Left' },
      { mesh: 1, name: 'Right' },
    ],
    meshes: [0, 1].map((m) => ({
      primitives: [
        {
          attributes: { POSITION: m * 3, NORMAL: m * 3 + 1, TEXCOORD_0: m * 3 + 2 },
          indices: 6,
          material: m,
        },
      ],
    })),
    materials: [material(0, 'Left'), material(3, 'Right')],
    textures: [{ source: 0 }, { source: 1 }, { source: 2 }, { source: 3 }],
    images: images.map((_, i) => ({ bufferView: i + 3, mimeType: 'image/png' })),
    accessors: [
      ...attributes(0),
      ...attributes(1),
      { bufferView: 2, componentType: 5123, count: 6, type: 'SCALAR' },
    ],
    bufferViews: views,
    buffers: [{ byteLength: bin.length }],
  }
  const text = Buffer.from(JSON.stringify(json))
  const jsonChunk = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)])
  const header = Buffer.alloc(12)
  header.write('glTF', 0, 'latin1')
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(12 + 8 + jsonChunk.length + 8 + bin.length, 8)
  const chunkHeader = (length: number, type: number) => {
    const h = Buffer.alloc(8)
    h.writeUInt32LE(length, 0)
    h.writeUInt32LE(type, 4)
    return h
  }
  return Buffer.concat([
    header,
    chunkHeader(jsonChunk.length, 0x4e4f534a),
    jsonChunk,
    chunkHeader(bin.length, 0x004e4942),
    bin,
  ])
}

/** A tangent-space normal leaning by (nx, ny) as an 8-bit RGBA texel (z up, unit length). */
export function normalTexel(nx: number, ny: number): [number, number, number, number] {
  const len = Math.hypot(nx, ny, 1)
  return [
    Math.round(127.5 * (1 + nx / len)),
    Math.round(127.5 * (1 + ny / len)),
    Math.round(127.5 * (1 + 1 / len)),
    255,
  ]
}
