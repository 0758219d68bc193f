// optimize_3d_model's textures through the runner, on a model generated at run time with 1024 x
// 1024 textures (test/mesh/textures-model.ts; bench/mesh/textures.ts runs 2048 and 4096): options
// accepted and refused, WebP and KTX2 outputs valid under the Khronos validator with zero errors
// and within a PSNR floor of their sources (decoded by `kiln-mesh textures`, the same decoder the
// bench uses for gltfpack's output), max_texture_size, the byte report, the merged duplicate and a
// hostile image header.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { kilnMeshPath } from '../../native/cargo.ts'
import { coreOptions, meshBackend } from '../../native/mesh.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { peerReady } from '../support/peers.ts'
import { context, gltfJson, listFiles, validatorErrors } from './corpus.ts'
import { encodePng, texturedGlb } from './textures-model.ts'

const SIZE = 1024
const kilnMesh = kilnMeshPath()
const hasCli = peerReady(
  'texture quality tests',
  !existsSync(kilnMesh) && `kiln-mesh is not built at ${kilnMesh} (npm run build:native)`,
)

interface TextureRow {
  image: number
  role: string
  format: string
  format_before: string
  bytes: number
  bytes_before: number
  size: [number, number]
  size_before: [number, number]
}

interface QualityRow {
  image: number
  source_image: number
  format: string
  bytes: number
  size: [number, number]
  psnr: number
}

let sourcePath = ''
let sourceBytes = 0

beforeAll(async () => {
  const ctx = await context()
  const glb = texturedGlb(SIZE)
  sourcePath = join(ctx.outDir, 'textured.glb')
  sourceBytes = glb.length
  await writeFile(sourcePath, glb)
})

async function run(options: object) {
  const ctx = await context()
  const input = { path: sourcePath, name: 'textured.glb', bytes: sourceBytes, extension: 'glb' }
  const { summary } = await optimize.run(input, optimizeOptions.parse(options), ctx)
  const [glb] = (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb'))
  return { summary, path: join(ctx.outDir, glb!) }
}

function quality(output: string): QualityRow[] {
  return JSON.parse(execFileSync(kilnMesh, ['textures', sourcePath, output], { encoding: 'utf8' }))
}

describe('optimize_3d_model texture options', () => {
  test('textures defaults to keep and max_texture_size to null; the core receives both', () => {
    expect(optimizeOptions.parse({})).toMatchObject({ textures: 'keep', max_texture_size: null })
    expect(coreOptions('optimize', { textures: 'ktx2', max_texture_size: 512 })).toMatchObject({
      textures: 'ktx2',
      max_texture_size: 512,
    })
  })

  test.each([
    [{ textures: 'avif' }],
    [{ textures: true }],
    [{ max_texture_size: 0 }],
    [{ max_texture_size: 8193 }],
    [{ max_texture_size: 256.5 }],
  ])('the catalog refuses %j', (options) => {
    expect(optimizeOptions.safeParse(options).success).toBe(false)
    expect(() => coreOptions('optimize', options)).toThrow(DomainError)
  })

  test('the core itself refuses an unknown texture mode with invalid_options', async () => {
    const options = { ...coreOptions('optimize', {}), textures: 'png' }
    const outcome = await meshBackend().addon.runTool(
      'optimize',
      Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'),
      'triangle.obj',
      'obj',
      JSON.stringify(options),
    )
    expect(outcome.error?.code).toBe('invalid_options')
    expect(outcome.error?.message).toMatch(/unknown variant `png`/)
  })
})

// Basis Universal takes tens of seconds on 1024 x 1024 textures when the machine is shared.
describe.runIf(hasCli)('optimize_3d_model re-encodes textures', { timeout: 300_000 }, () => {
  test('keep: the images stay byte for byte (never decoded, so the pixel-equal copy stays), the unused one goes', async () => {
    const { summary, path } = await run({})
    const rows = summary.textures as TextureRow[]
    expect(rows).toHaveLength(4)
    for (const row of rows) expect(row.bytes).toBe(row.bytes_before)
    const json = await gltfJson(path)
    expect(json.images).toHaveLength(4)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('webp: valid, required EXT_texture_webp, much smaller, PSNR over 33 dB per texture', async () => {
    const { summary, path } = await run({ textures: 'webp' })
    expect(await validatorErrors(path)).toEqual([])
    const json = await gltfJson(path)
    expect(json.extensionsRequired).toContain('EXT_texture_webp')
    expect(json.images).toHaveLength(3)
    expect(summary.extensions).toContain('EXT_texture_webp')
    const rows = summary.textures as TextureRow[]
    expect(rows.map((r) => r.role)).toEqual(['color', 'normal', 'data', 'color'])
    for (const row of rows) {
      expect(row.format).toBe('webp')
      expect(row.bytes).toBeLessThan(row.bytes_before / 3)
    }
    const measured = quality(path)
    expect(measured.map((r) => r.source_image).sort()).toEqual([0, 1, 2])
    // The quality factor is chosen per texture to reach libwebp's PSNR at gltfpack's settings in
    // fewer bytes (bench/mesh/textures.ts compares with gltfpack itself): 33.8 dB on this ORM map.
    for (const row of measured) expect(row.psnr, `image ${row.source_image}`).toBeGreaterThan(33)
  })

  test('ktx2: valid, required KHR_texture_basisu, ETC1S colour over 30 dB, UASTC data over 38 dB', async () => {
    const { summary, path } = await run({ textures: 'ktx2' })
    expect(await validatorErrors(path)).toEqual([])
    const json = await gltfJson(path)
    expect(json.extensionsRequired).toContain('KHR_texture_basisu')
    expect((json.images as Array<{ mimeType: string }>).map((i) => i.mimeType)).toEqual([
      'image/ktx2',
      'image/ktx2',
      'image/ktx2',
    ])
    expect((summary.textures as TextureRow[]).every((r) => r.format === 'ktx2')).toBe(true)
    for (const row of quality(path)) {
      const floor = row.source_image === 0 ? 30 : 38
      expect(row.psnr, `image ${row.source_image}`).toBeGreaterThan(floor)
    }
  })

  test('max_texture_size: the longest side fits and stays a power of two', async () => {
    const { summary, path } = await run({ textures: 'webp', max_texture_size: 300 })
    expect(await validatorErrors(path)).toEqual([])
    for (const row of summary.textures as TextureRow[]) {
      expect(row.size_before).toEqual([SIZE, SIZE])
      expect(row.size).toEqual([256, 256])
    }
    for (const row of quality(path)) expect(row.size).toEqual([256, 256])
  })
})

describe('a hostile texture', () => {
  test('a PNG header claiming 100,000 x 100,000 pixels is limit_exceeded, not an allocation', async () => {
    const ctx = await context()
    const glb = texturedGlb(4)
    const small = encodePng(4, 4, new Uint8Array(64))
    const at = glb.indexOf(small.subarray(0, 24))
    expect(at).toBeGreaterThan(0)
    // Rewrite the IHDR's width and height of the first image; the chunk CRC is left wrong on purpose.
    glb.writeUInt32BE(100_000, at + 16)
    glb.writeUInt32BE(100_000, at + 20)
    const path = join(ctx.outDir, 'hostile.glb')
    await writeFile(path, glb)
    const input = { path, name: 'hostile.glb', bytes: glb.length, extension: 'glb' }
    const error = await optimize.run(input, optimizeOptions.parse({ textures: 'webp' }), ctx).catch((e) => e)
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('limit_exceeded')
    expect((error as DomainError).message).toMatch(/100000 x 100000/)
    expect((await listFiles(ctx.outDir)).filter((f) => f.endsWith('_optimized.glb'))).toEqual([])
  })
})
