// The WASM fallback of the mesh core (native/build-wasm.ts) against the native addon: the same
// files, byte for byte, and the same summaries and errors, for every tool on corpus models; and
// the facade really runs on it when told to. With KILN_EXPECT_WASM (set by .ci/run once it built
// the fallback) the WASM build must exist; otherwise the suite says it skipped.
import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { extname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { coreOptions, loadMeshBuild, type MeshAddon, type MeshTool } from '../../native/mesh.ts'
import { corpusDir, hasCorpus } from './corpus.ts'

const native = loadMeshBuild('native')
const wasm = loadMeshBuild('wasm')
if (!wasm) {
  if (process.env.KILN_EXPECT_WASM)
    throw new Error('KILN_EXPECT_WASM is set but the WASM fallback is missing: node native/build-wasm.ts')
  console.log('SKIPPED mesh WASM parity: no WASM build (node native/build-wasm.ts mesh-node)')
}
const runnable = Boolean(native && wasm && hasCorpus)

/** Small and mid-size models of every format, so the slower WASM build stays quick. */
const models = [
  'glb/CesiumMan.glb',
  'glb/ShapeCollection.glb',
  'glb/BoxMeshopt.glb',
  'gltf/BoxTextured_embedded/BoxTextured.gltf',
  'obj/spider/spider.obj',
  'ply/test_pos_color.ply',
  'stl/Spider_binary.stl',
]
const jobs: Array<[string, object]> = [
  ['inspect', {}],
  ['simplify', { target_ratio: 0.3, format: 'glb' }],
  ['optimize', { simplify_ratio: 0.8 }],
  ['split', { segmented: true, max_parts: 6 }],
]

async function run(addon: MeshAddon, tool: string, path: string, options: object) {
  const name = path.split('/').pop() ?? path
  const outcome = await addon.runTool(
    tool as 'inspect',
    await readFile(join(corpusDir, path)),
    name,
    extname(name).slice(1),
    JSON.stringify(coreOptions(tool as MeshTool, options)),
  )
  const summary = outcome.summaryJson ? JSON.parse(outcome.summaryJson) : null
  if (summary) delete summary.timings_s
  return { summary, error: outcome.error ?? null, files: outcome.files }
}

describe.runIf(runnable)('mesh core: the WASM build gives the native results', () => {
  for (const model of models)
    it(`${model}: every tool, byte-identical files`, { timeout: 120_000 }, async () => {
      for (const [tool, options] of jobs) {
        const a = await run(native as MeshAddon, tool, model, options)
        const b = await run(wasm as MeshAddon, tool, model, options)
        expect(b.error, `${tool} error`).toEqual(a.error)
        expect(b.summary, `${tool} summary`).toEqual(a.summary)
        expect(b.files.map((f) => f.name)).toEqual(a.files.map((f) => f.name))
        expect(a.files.length).toBeGreaterThan(0)
        for (const [i, file] of a.files.entries())
          expect(Buffer.compare(file.data, b.files[i]?.data ?? Buffer.alloc(0)), `${tool} ${file.name}`).toBe(
            0,
          )
      }
    })

  it('malformed files give the same error codes', async () => {
    for (const path of [
      'malformed/glb/chunk_too_big.glb',
      'malformed/glb/invalid_json_chunk.glb',
      'malformed/ply/empty.ply',
    ]) {
      const a = await run(native as MeshAddon, 'inspect', path, {})
      const b = await run(wasm as MeshAddon, 'inspect', path, {})
      expect(a.error?.code).toMatch(/invalid_mesh|unsupported_format/)
      expect(b.error).toEqual(a.error)
    }
  })

  it('a file that aborts the WASM build fails as invalid_mesh, and the build serves the next', {
    timeout: 120_000,
  }, async () => {
    // Box_Draco.glb with one bit of its Draco stream flipped: the decoder panics on it (the native
    // build catches that and answers without the decoder's reason); wasm32 cannot unwind, so the
    // WASM build aborts on it.
    const source = await readFile(join(corpusDir, 'glb/Box_Draco.glb'))
    const damaged = Buffer.from(source)
    damaged[2361] = (damaged[2361] ?? 0) ^ 8
    const inspect = (addon: MeshAddon, data: Buffer) =>
      addon.runTool('inspect', data, 'box.glb', 'glb', JSON.stringify(coreOptions('inspect', {})))
    const native_ = await inspect(native as MeshAddon, damaged)
    expect(native_.error?.message).toBe('a Draco-compressed mesh does not decode')
    // Sound calls in flight beside it get their answers.
    const [aborted, ...sound] = await Promise.all([
      inspect(wasm as MeshAddon, damaged),
      inspect(wasm as MeshAddon, source),
      inspect(wasm as MeshAddon, source),
    ])
    expect(aborted.error).toEqual({
      code: 'invalid_mesh',
      message: 'the model could not be processed (it stopped the mesh core)',
      hint: 'The file may be corrupt; re-export it and try again.',
    })
    const expected = (await inspect(native as MeshAddon, source)).summaryJson
    const withoutTimings = (json?: string) => ({ ...JSON.parse(json ?? 'null'), timings_s: null })
    for (const outcome of [...sound, await inspect(wasm as MeshAddon, source)]) {
      expect(outcome.error).toBeUndefined()
      expect(withoutTimings(outcome.summaryJson)).toEqual(withoutTimings(expected))
    }
  })

  it('the facade runs on the WASM build with KILN_MESH_BACKEND=wasm', { timeout: 60_000 }, () => {
    const script = `
      import { meshBackend, runMeshTool } from './native/mesh.ts'
      import { readFileSync } from 'node:fs'
      const result = await runMeshTool('optimize', { data: readFileSync(process.argv[1]), name: 'spider.obj', extension: 'obj' }, {})
      console.log(JSON.stringify({ backend: meshBackend().backend, faces: result.summary.after.faces }))`
    const root = resolve(import.meta.dirname, '../..')
    const out = execFileSync(
      process.execPath,
      ['--no-warnings', '--input-type=module', '-e', script, join(corpusDir, 'obj/spider/spider.obj')],
      { cwd: root, env: { ...process.env, KILN_MESH_BACKEND: 'wasm' }, encoding: 'utf8' },
    )
    expect(JSON.parse(out.trim().split('\n').pop() ?? '')).toEqual({
      backend: 'wasm',
      faces: expect.any(Number),
    })
  })
})
