// optimize_3d_model on a generated textured quad grid whose UVs tile (range [-2, 3] x [0.5, 1.5]):
// the UVs are quantized into [0, 1], the material's texture references get a KHR_texture_transform
// that maps them back (composed with the one the base colour texture already had), and the GLB
// passes the Khronos validator.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { png } from '../generation/fakes.ts'
import { context, listFiles, validatorErrors } from './corpus.ts'

/** A .gltf with every buffer embedded: an n x n vertex grid with tiling UVs and one textured material. */
function tilingGrid(n: number): string {
  const positions: number[] = []
  const uvs: number[] = []
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      positions.push(x / (n - 1), Math.sin(x + y) * 0.05, y / (n - 1))
      uvs.push(-2 + (5 * x) / (n - 1), 0.5 + y / (n - 1))
    }
  }
  const indices: number[] = []
  for (let y = 0; y + 1 < n; y++) {
    for (let x = 0; x + 1 < n; x++) {
      const i = y * n + x
      indices.push(i, i + n, i + 1, i + 1, i + n, i + n + 1)
    }
  }
  const bin = Buffer.concat([
    Buffer.from(new Float32Array(positions).buffer),
    Buffer.from(new Float32Array(uvs).buffer),
    Buffer.from(new Uint16Array(indices).buffer),
  ])
  const [p, t] = [positions.length * 4, uvs.length * 4]
  const min = [0, Math.min(...positions.filter((_, i) => i % 3 === 1)), 0]
  const max = [1, Math.max(...positions.filter((_, i) => i % 3 === 1)), 1]
  return JSON.stringify({
    asset: { version: '2.0' },
    extensionsUsed: ['KHR_texture_transform'],
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name: 'Tiles' }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, TEXCOORD_0: 1 }, indices: 2, material: 0 }] }],
    materials: [
      {
        name: 'Tiled',
        pbrMetallicRoughness: {
          baseColorTexture: { index: 0, extensions: { KHR_texture_transform: { scale: [2, 2] } } },
        },
        normalTexture: { index: 0 },
      },
    ],
    textures: [{ source: 0 }],
    images: [{ uri: `data:image/png;base64,${png(1, 1).toString('base64')}` }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: n * n, type: 'VEC3', min, max },
      { bufferView: 1, componentType: 5126, count: n * n, type: 'VEC2' },
      { bufferView: 2, componentType: 5123, count: indices.length, type: 'SCALAR' },
    ],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: p },
      { buffer: 0, byteOffset: p, byteLength: t },
      { buffer: 0, byteOffset: p + t, byteLength: indices.length * 2 },
    ],
    buffers: [
      { byteLength: bin.length, uri: `data:application/octet-stream;base64,${bin.toString('base64')}` },
    ],
  })
}

// biome-ignore lint/suspicious/noExplicitAny: the GLB JSON is walked ad hoc by the assertions below
function glbJson(glb: Buffer): Record<string, any> {
  const length = glb.readUInt32LE(12)
  return JSON.parse(glb.subarray(20, 20 + length).toString('utf8'))
}

describe('optimize quantizes tiling texture coordinates', () => {
  test('UVs outside [0, 1] become u16 with a texture transform on every reference', async () => {
    const ctx = await context()
    const path = join(ctx.outDir, 'tiles.gltf')
    const text = tilingGrid(24)
    await writeFile(path, text)
    const input = { path, name: 'tiles.gltf', bytes: Buffer.byteLength(text), extension: 'gltf' }
    await optimize.run(input, optimizeOptions.parse({}), ctx)
    const [file] = (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb'))
    const out = join(ctx.outDir, file!)
    expect(await validatorErrors(out)).toEqual([])
    const json = glbJson(await readFile(out))
    expect(json.extensionsRequired).toContain('KHR_texture_transform')
    const uv = json.accessors[json.meshes[0].primitives[0].attributes.TEXCOORD_0]
    expect(uv).toMatchObject({ componentType: 5123, normalized: true })
    const material = json.materials[0]
    // The quad's UVs span 5 x 1 units from (-2, 0.5), stored as grid indices on 4095 steps across
    // each range: the wide range samples a 1-texel image, whose four steps a texel are fewer than
    // gltfpack's 12 bits across the range, the floor; a range of one unit gets 4095 as gltfpack.
    // So the normalized value is scaled by range × 65535 / 4095; the base colour's own scale 2
    // composes after.
    const unitRange = 65535 / 4095
    const normal = material.normalTexture.extensions.KHR_texture_transform
    expect(normal.offset).toEqual([-2, 0.5])
    expect(normal.scale[0]).toBeCloseTo(5 * unitRange, 4)
    expect(normal.scale[1]).toBeCloseTo(unitRange, 5)
    const base = material.pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform
    expect(base.offset).toEqual([-4, 1])
    expect(base.scale[0]).toBeCloseTo(10 * unitRange, 4)
    expect(base.scale[1]).toBeCloseTo(2 * unitRange, 5)
  })
})
