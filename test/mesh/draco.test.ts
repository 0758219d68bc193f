// Draco-compressed input (KHR_draco_mesh_compression): corpus models are compressed here with
// gltf-transform's CLI (Google's encoder, both connectivity methods), then every mesh tool must read
// them as it reads the source — same faces, attributes and bounds — and write valid, uncompressed
// output. Tampered streams and declared sizes are refused with the right code, never a crash.
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { splitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { runIsolated } from '../../workers/runtime/isolated-run.ts'
import { runner as inspect } from '../../workers/tools/inspect_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { runner as split } from '../../workers/tools/split_3d_model.ts'
import { context, corpusDir, gltfJson, hasCorpus, inputFile, listFiles, validatorErrors } from './corpus.ts'

const DRACO = 'KHR_draco_mesh_compression'
const cli = join(process.cwd(), 'node_modules/.bin/gltf-transform')

/** Sources: skinned and textured, several meshes, a 115k-face mesh with tangents, a .gltf. */
const sources: Array<[string, number]> = [
  ['glb/CesiumMan.glb', 4672],
  ['glb/ShapeCollection.glb', 2390],
  ['glb/SheenCloth.glb', 115200],
  ['gltf/BoxTextured_embedded/BoxTextured.gltf', 12],
]
const methods = ['edgebreaker', 'sequential'] as const

type Case = { name: string; source: string; faces: number; method: string; file: ToolInputFile }
const cases: Case[] = []
let workDir = ''

/** The parts of a glTF document these tests read or tamper with. */
type Gltf = {
  meshes: Array<{
    primitives: Array<{
      attributes: Record<string, number>
      indices: number
      extensions: Record<string, { bufferView: number }>
    }>
  }>
  accessors: Array<{ count: number }>
  bufferViews: Array<{ byteOffset: number; byteLength: number }>
  buffers: Array<{ byteLength: number; uri?: string }>
}

function glbParts(bytes: Buffer): { json: Gltf; bin: Buffer } {
  const length = bytes.readUInt32LE(12)
  const json = JSON.parse(bytes.subarray(20, 20 + length).toString('utf8'))
  return { json, bin: bytes.subarray(20 + length + 8) }
}

function packGlb(json: unknown, bin: Buffer): Buffer {
  const text = Buffer.from(JSON.stringify(json))
  const jsonChunk = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)])
  const binChunk = Buffer.concat([bin, Buffer.alloc((4 - (bin.length % 4)) % 4)])
  const header = Buffer.alloc(12)
  header.write('glTF', 0)
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(12 + 8 + jsonChunk.length + 8 + binChunk.length, 8)
  const chunk = (data: Buffer, type: number) => {
    const head = Buffer.alloc(8)
    head.writeUInt32LE(data.length, 0)
    head.writeUInt32LE(type, 4)
    return Buffer.concat([head, data])
  }
  return Buffer.concat([header, chunk(jsonChunk, 0x4e4f534a), chunk(binChunk, 0x004e4942)])
}

async function fileInput(path: string, name: string): Promise<ToolInputFile> {
  const bytes = (await readFile(path)).length
  return { path, name, bytes, extension: name.split('.').pop() ?? '' }
}

/** A Draco GLB of the source with its JSON changed by `edit` (and its stream bytes by `editBin`). */
async function tampered(
  name: string,
  edit: (json: Gltf) => void,
  editBin: (bin: Buffer, json: Gltf) => void = () => {},
): Promise<ToolInputFile> {
  const base = cases.find((c) => c.name === 'CesiumMan.glb edgebreaker')
  if (!base) throw new Error('fixture missing')
  const { json, bin } = glbParts(await readFile(base.file.path))
  const copy = Buffer.from(bin)
  edit(json)
  editBin(copy, json)
  const path = join(workDir, name)
  await writeFile(path, packGlb(json, copy))
  return fileInput(path, name)
}

function firstPrimitive(json: Gltf): Gltf['meshes'][number]['primitives'][number] {
  const primitive = json.meshes[0]?.primitives[0]
  if (!primitive) throw new Error('no primitive')
  return primitive
}

function dracoView(json: Gltf): { byteOffset: number; byteLength: number } {
  const view = json.bufferViews[firstPrimitive(json).extensions[DRACO]?.bufferView ?? -1]
  if (!view) throw new Error('no Draco buffer view')
  return view
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(DomainError)
  return error as DomainError
}

type Primitive = {
  faces: number
  attributes: string[]
  bounds: { min: number[]; max: number[]; size: number[] }
}

async function inspected(file: ToolInputFile): Promise<Primitive[]> {
  const ctx = await context()
  await inspect.run(file, {}, ctx)
  const report = JSON.parse(await readFile(join(ctx.outDir, 'inspection.json'), 'utf8'))
  return report.meshes.flatMap((m: { primitives: Primitive[] }) => m.primitives)
}

async function expectPlainValidGlbs(outDir: string): Promise<void> {
  const glbs = (await listFiles(outDir)).filter((f) => f.endsWith('.glb'))
  expect(glbs.length).toBeGreaterThan(0)
  for (const file of glbs) {
    expect(await validatorErrors(join(outDir, file)), file).toEqual([])
    const json = await gltfJson(join(outDir, file))
    expect(JSON.stringify(json), file).not.toContain(DRACO)
  }
}

describe.runIf(hasCorpus)('Draco-compressed input', () => {
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'kiln-draco-'))
    for (const [source, faces] of sources) {
      const base =
        source
          .split('/')
          .pop()
          ?.replace(/\.[^.]+$/, '') ?? source
      for (const method of methods) {
        const out = join(workDir, `${base}_${method}.glb`)
        const run = spawnSync(cli, ['draco', join(corpusDir, source), out, '--method', method], {
          encoding: 'utf8',
        })
        if (run.status !== 0) throw new Error(`gltf-transform draco failed: ${run.stderr}`)
        cases.push({
          name: `${base}.glb ${method}`,
          source,
          faces,
          method,
          file: await fileInput(out, `${base}.glb`),
        })
      }
    }
    // The same Draco data as a .gltf with its buffer embedded as a data: URI.
    const { json, bin } = glbParts(await readFile(join(workDir, 'CesiumMan_edgebreaker.glb')))
    const buffer = json.buffers[0]
    if (!buffer) throw new Error('no buffer')
    buffer.uri = `data:application/octet-stream;base64,${bin.subarray(0, buffer.byteLength).toString('base64')}`
    const path = join(workDir, 'CesiumMan_draco.gltf')
    await writeFile(path, JSON.stringify(json))
    cases.push({
      name: 'CesiumMan.gltf edgebreaker',
      source: 'glb/CesiumMan.glb',
      faces: 4672,
      method: 'edgebreaker',
      file: await fileInput(path, 'CesiumMan.gltf'),
    })
  }, 120_000)

  test('the fixtures really are Draco-compressed', async () => {
    expect(cases.length).toBe(sources.length * methods.length + 1)
    for (const c of cases) {
      const json = await gltfJson(c.file.path)
      expect(json.extensionsRequired, c.name).toContain(DRACO)
    }
  })

  test('the corpus Draco box is measured', async () => {
    expect(await inspect.measure(await inputFile('glb/Box_Draco.glb'), {})).toEqual({ units: 12 })
  })

  test('every case reads as its source: faces, attributes and bounds within Draco quantization', async () => {
    for (const c of cases) {
      // Inspect counts faces as placed in the scene (an instanced mesh once per use), as for the source.
      expect(await inspect.measure(c.file, {}), c.name).toEqual(
        await inspect.measure(await inputFile(c.source), {}),
      )
      const source = await inspected(await inputFile(c.source))
      const decoded = await inspected(c.file)
      expect(
        decoded.map((p) => [p.faces, p.attributes]),
        c.name,
      ).toEqual(source.map((p) => [p.faces, p.attributes]))
      decoded.forEach((p, i) => {
        const want = source[i]?.bounds
        if (!want) throw new Error('primitive missing')
        const tolerance = Math.max(...want.size) / 2 ** 10
        for (const key of ['min', 'max'] as const) {
          p.bounds[key].forEach((v, axis) => {
            expect(Math.abs(v - (want[key][axis] ?? 0)), `${c.name} ${key}`).toBeLessThanOrEqual(tolerance)
          })
        }
      })
    }
  }, 120_000)

  test('optimize, simplify and split write valid GLBs without Draco, with the source face counts', async () => {
    for (const c of cases) {
      const optimized = await context()
      const { summary } = await optimize.run(c.file, optimizeOptions.parse({}), optimized)
      expect((summary.before as { faces: number }).faces, c.name).toBe(c.faces)
      const plain = await optimize.run(await inputFile(c.source), optimizeOptions.parse({}), await context())
      expect((summary.after as { faces: number }).faces, c.name).toBe(
        (plain.summary.after as { faces: number }).faces,
      )
      expect(summary.extensions).not.toContain(DRACO)
      await expectPlainValidGlbs(optimized.outDir)

      const simplified = await context()
      const s = await simplify.run(c.file, simplifyOptions.parse({ target_ratio: 0.5 }), simplified)
      expect(s.summary.input_faces, c.name).toBe(c.faces)
      await expectPlainValidGlbs(simplified.outDir)

      const parts = await context()
      const p = await split.run(c.file, splitOptions.parse({}), parts)
      // Split counts faces as placed in the scene, the way inspect measures them.
      expect({ units: p.summary.input_faces }, c.name).toEqual(
        await inspect.measure(await inputFile(c.source), {}),
      )
      await expectPlainValidGlbs(parts.outDir)
    }
  }, 300_000)

  test('a damaged Draco stream is an invalid mesh', async () => {
    const file = await tampered(
      'damaged.glb',
      () => {},
      (bin, json) => {
        const view = dracoView(json)
        // Keep the header; overwrite the connectivity and attribute data with a pattern.
        for (let i = view.byteOffset + 24; i < view.byteOffset + view.byteLength; i++)
          bin[i] = (i * 151) & 0xff
      },
    )
    const e = await failure(inspect.measure(file, {}))
    expect(e.code).toBe('invalid_mesh')
    expect(e.hint).toBeTruthy()
  })

  test('a stream that declares another face count than its accessor is an invalid mesh', async () => {
    const file = await tampered('miscounted.glb', (json) => {
      const accessor = json.accessors[firstPrimitive(json).indices]
      if (accessor) accessor.count += 3
    })
    const e = await failure(inspect.measure(file, {}))
    expect(e.code).toBe('invalid_mesh')
    expect(e.message).toMatch(/declares other counts/)
  })

  test('declared vertex counts beyond the decode budget are refused before decoding', async () => {
    const file = await tampered('huge.glb', (json) => {
      const attributes = firstPrimitive(json).attributes
      for (const accessor of Object.values(attributes) as number[])
        Object.assign(json.accessors[accessor] ?? {}, { count: 500_000_000 })
    })
    const e = await failure(inspect.measure(file, {}))
    expect(e.code).toBe('limit_exceeded')
  })

  test('flipped bytes anywhere in the Draco stream never crash: the model reads whole or fails with a 4xx code', async () => {
    let seed = 17
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed
    }
    const outcomes = new Set<string>()
    for (let round = 0; round < 40; round++) {
      const file = await tampered(
        `flipped-${round}.glb`,
        () => {},
        (bin, json) => {
          const view = dracoView(json)
          for (let k = 0; k < 1 + (round % 4); k++) {
            const at = view.byteOffset + 11 + (next() % (view.byteLength - 11))
            bin[at] = (bin[at] ?? 0) ^ (1 << (next() % 8))
          }
        },
      )
      const result = await inspect.measure(file, {}).then(
        (measured) => `read ${measured.units}`,
        (e: unknown) => (e instanceof DomainError ? e.code : `crash ${String(e)}`),
      )
      expect(['read 4672', 'invalid_mesh', 'unsupported_format', 'limit_exceeded'], result).toContain(result)
      outcomes.add(result)
    }
    expect(outcomes.has('invalid_mesh')).toBe(true)
  }, 120_000)

  test('a stream that makes the decoder ask for 34 GB fails its job as out_of_memory, not as a crash', async () => {
    // The corpus box with four bytes of its Draco stream set to 0xFF (found by the mesh core's
    // fuzzing, native/mesh-core/tests/fuzz.rs, under MESH_FUZZ_SEED=2026112901):
    // the decoder reads a symbol count of billions and asks for it all at once. Rust aborts on a
    // failed allocation, which no reader can catch, so this runs as a job does, in a child process.
    const damaged = Buffer.from(await readFile(join(corpusDir, 'glb/Box_Draco.glb')))
    damaged.fill(0xff, 2336, 2340)
    const path = join(workDir, 'asks-for-34-gb.glb')
    await writeFile(path, damaged)
    const outcome = await runIsolated({
      tool: 'inspect_3d_model',
      input: await fileInput(path, 'box.glb'),
      options: {},
      outDir: await mkdtemp(join(workDir, 'job-')),
      timeoutMs: 60_000,
      memoryMb: 2048,
      afterMeasure: async () => null,
      onProgress: () => {},
    })
    expect(outcome).toMatchObject({
      ok: false,
      units: null,
      error: {
        code: 'out_of_memory',
        message: 'The job asked for 34,816 MB of memory at once; it has 2048 MB.',
      },
    })
  }, 60_000)

  test('an older Draco bitstream is unsupported with a hint', async () => {
    const file = await tampered(
      'old.glb',
      () => {},
      (bin, json) => {
        bin[dracoView(json).byteOffset + 6] = 1 // version 2.1
      },
    )
    const e = await failure(inspect.measure(file, {}))
    expect(e.code).toBe('unsupported_format')
    expect(e.hint).toMatch(/bitstream 2\.2/)
  })
})
