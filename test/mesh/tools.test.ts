// The four mesh runners on the shared corpus: spec summary fields, files, and every GLB written
// passes the Khronos validator with zero errors.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { splitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { runner as inspect } from '../../workers/tools/inspect_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { runner as split } from '../../workers/tools/split_3d_model.ts'
import {
  context,
  corpusDir,
  corpusModels,
  gltfJson,
  hasCorpus,
  inputFile,
  listFiles,
  validatorErrors,
} from './corpus.ts'

async function expectValidGlbs(outDir: string): Promise<void> {
  for (const file of (await listFiles(outDir)).filter((f) => f.endsWith('.glb'))) {
    expect(await validatorErrors(join(outDir, file)), file).toEqual([])
  }
}

/** A GLB written from a glTF source keeps as many skins and animations as the source had. */
async function expectSameRigging(source: string, outDir: string): Promise<void> {
  if (!/\.(glb|gltf)$/.test(source)) return
  const input = await gltfJson(source)
  for (const file of (await listFiles(outDir)).filter((f) => f.endsWith('.glb'))) {
    const output = await gltfJson(join(outDir, file))
    for (const key of ['skins', 'animations']) {
      expect(output[key]?.length ?? 0, `${file} ${key}`).toBe(input[key]?.length ?? 0)
    }
  }
}

describe.runIf(hasCorpus)('mesh tools on the corpus', () => {
  test.each(corpusModels)('measure counts the stored faces of %s for optimize', async (model, faces) => {
    expect(await optimize.measure(await inputFile(model), optimizeOptions.parse({}))).toEqual({
      units: faces,
    })
  })

  test('split and inspect measure faces as placed in the scene, instances included', async () => {
    // ShapeCollection stores 2,390 triangles and places some of its meshes more than once.
    const model = await inputFile('glb/ShapeCollection.glb')
    expect(await optimize.measure(model, optimizeOptions.parse({}))).toEqual({ units: 2390 })
    expect(await inspect.measure(model, {})).toEqual({ units: 3542 })
    expect(await split.measure(model, splitOptions.parse({}))).toEqual({ units: 3542 })
    const ctx = await context()
    const { summary } = await split.run(model, splitOptions.parse({ segmented: false }), ctx)
    expect(summary).toMatchObject({ input_faces: 3542, exported_faces: 3542 })
  })

  test.each(corpusModels)('inspect %s', async (model, faces) => {
    const ctx = await context()
    const { summary } = await inspect.run(await inputFile(model), {}, ctx)
    expect(Object.keys(summary).sort()).toEqual([
      'details_truncated',
      'face_count',
      'mesh_instance_count',
      'notes',
      'object_count',
      'schema_version',
      'vertex_count',
    ])
    expect(summary.face_count).toBe(faces)
    expect(await listFiles(ctx.outDir)).toEqual(['inspection.json', 'preview.png', 'summary.txt'])
    const report = JSON.parse(await readFile(join(ctx.outDir, 'inspection.json'), 'utf8'))
    expect(report.meshes.length).toBe(summary.object_count)
    expect(report.meshes[0].primitives[0].topology).toHaveProperty('non_manifold_edges')
    const png = await readFile(join(ctx.outDir, 'preview.png'))
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect(ctx.progressed.at(-1)).toBe(1)
  })

  test.each(corpusModels)('simplify %s to a quarter, keeping the format', async (model, faces) => {
    const ctx = await context()
    const input = await inputFile(model)
    const { summary } = await simplify.run(
      input,
      simplifyOptions.parse({ target_ratio: 0.25, max_error: 0.05 }),
      ctx,
    )
    expect(summary.input_faces).toBe(faces)
    expect(summary.output_faces as number).toBeLessThanOrEqual(faces)
    expect(summary.error as number).toBeLessThanOrEqual(0.05)
    if (!summary.target_reached) expect((summary.notes as string[]).join(' ')).toMatch(/not reached/)
    const files = await listFiles(ctx.outDir)
    const expectedExtension = input.extension === 'gltf' ? 'glb' : input.extension
    expect(files).toEqual([expect.stringMatching(new RegExp(`_simplified\\.${expectedExtension}$`))])
    await expectValidGlbs(ctx.outDir)
    await expectSameRigging(input.path, ctx.outDir)
  })

  test.each(corpusModels)('optimize %s', async (model, faces) => {
    const ctx = await context()
    const input = await inputFile(model)
    const { summary } = await optimize.run(input, optimizeOptions.parse({}), ctx)
    const after = summary.after as { faces: number; bytes: number }
    expect(after.faces).toBeLessThanOrEqual(faces)
    expect(after.faces).toBeGreaterThan(0)
    expect(summary.extensions).toEqual(['KHR_mesh_quantization', 'EXT_meshopt_compression'])
    expect(await listFiles(ctx.outDir)).toEqual([expect.stringMatching(/_optimized\.glb$/)])
    await expectValidGlbs(ctx.outDir)
    await expectSameRigging(input.path, ctx.outDir)
  })

  test.each(corpusModels)('split %s into glb parts and a zip', async (model) => {
    const ctx = await context()
    const input = await inputFile(model)
    const { summary } = await split.run(input, splitOptions.parse({ density: 1.2 }), ctx)
    expect(Object.keys(summary).sort()).toEqual([
      'exported_faces',
      'input_faces',
      'notes',
      'part_count',
      'schema_version',
      'timings_s',
    ])
    const files = await listFiles(ctx.outDir)
    const parts = files.filter((f) => f.startsWith('parts/'))
    expect(parts.length).toBe(summary.part_count)
    expect(files).toContain(`${input.name.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9_-]/g, '_')}_parts.zip`)
    const manifest = JSON.parse(await readFile(join(ctx.outDir, 'parts.json'), 'utf8'))
    expect(manifest.parts.reduce((n: number, p: { faces: number }) => n + p.faces, 0)).toBe(
      summary.exported_faces,
    )
    expect(manifest.parts.every((p: { mass_g?: number }) => typeof p.mass_g === 'number')).toBe(true)
    await expectValidGlbs(ctx.outDir)
  })

  test('a rigged, animated model keeps its skin and animation in GLB and says what static outputs lose', async () => {
    const input = await inputFile('glb/CesiumMan.glb')
    const optimized = await context()
    await optimize.run(input, optimizeOptions.parse({ simplify_ratio: 0.5 }), optimized)
    await expectValidGlbs(optimized.outDir)
    const [file] = await listFiles(optimized.outDir)
    const output = await gltfJson(join(optimized.outDir, file ?? ''))
    expect([output.skins?.length, output.animations?.length]).toEqual([1, 1])
    const obj = await context()
    const { summary } = await simplify.run(input, simplifyOptions.parse({ format: 'obj' }), obj)
    expect((summary.notes as string[]).join(' ')).toMatch(
      /1 skin\(s\) and 1 animation\(s\) are not carried into OBJ/,
    )
    const parts = await context()
    const split3d = await split.run(input, splitOptions.parse({}), parts)
    expect((split3d.summary.notes as string[]).join(' ')).toMatch(/not carried into the parts/)
  })

  test('animation_error trades animation precision for bytes; the file stays valid and animated', async () => {
    const input = await inputFile('glb/CesiumMan.glb')
    const sizes: number[] = []
    for (const animation_error of [null, 0.001]) {
      const ctx = await context()
      const { summary } = await optimize.run(input, optimizeOptions.parse({ animation_error }), ctx)
      await expectValidGlbs(ctx.outDir)
      await expectSameRigging(join(corpusDir, 'glb/CesiumMan.glb'), ctx.outDir)
      sizes.push(summary.output_bytes as number)
    }
    expect(sizes[1]).toBeLessThan(sizes[0]!)
  })

  test('simplify drops animation keys only when given an animation_error', async () => {
    const input = await inputFile('glb/CesiumMan.glb')
    const keyCounts: number[] = []
    for (const animation_error of [null, 0.001]) {
      const ctx = await context()
      await simplify.run(input, simplifyOptions.parse({ format: 'glb', animation_error }), ctx)
      await expectValidGlbs(ctx.outDir)
      await expectSameRigging(join(corpusDir, 'glb/CesiumMan.glb'), ctx.outDir)
      const [file] = await listFiles(ctx.outDir)
      const output = (await gltfJson(join(ctx.outDir, file ?? ''))) as {
        animations: { samplers: { input: number }[] }[]
        accessors: { count: number }[]
      }
      keyCounts.push(output.animations[0]!.samplers.reduce((n, s) => n + output.accessors[s.input]!.count, 0))
    }
    expect(keyCounts[1]).toBeLessThan(keyCounts[0]!)
  })

  test('split honours max_parts, format and the face floor', async () => {
    const ctx = await context()
    const { summary } = await split.run(
      await inputFile('glb/ShapeCollection.glb'),
      splitOptions.parse({ max_parts: 2, format: 'obj', segmented: false }),
      ctx,
    )
    expect(summary.part_count).toBe(2)
    const files = await listFiles(ctx.outDir)
    expect(files.filter((f) => f.startsWith('parts/')).every((f) => f.endsWith('.obj'))).toBe(true)
    const loose = await context()
    const all = await split.run(
      await inputFile('glb/ShapeCollection.glb'),
      splitOptions.parse({ segmented: false, detail: 'high' }),
      loose,
    )
    expect(all.summary.part_count as number).toBeGreaterThan(2)
  })

  test('simplify writes the format asked for and reports an unreachable target', async () => {
    const ctx = await context()
    const { summary } = await simplify.run(
      await inputFile('obj/teapot.obj'),
      simplifyOptions.parse({ target_faces: 4, max_error: 0.0001, format: 'ply' }),
      ctx,
    )
    expect(summary.target_reached).toBe(false)
    expect((summary.notes as string[]).join(' ')).toMatch(/not reached/)
    expect(await listFiles(ctx.outDir)).toEqual(['teapot_simplified.ply'])
  })
})
