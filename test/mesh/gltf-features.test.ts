// The four mesh tools on glTF documents that each use one part of the format the bench's models do
// not (gltf-features.ts): each tool succeeds, writes files the Khronos validator passes, places the
// same triangles where the source did, and keeps what the scene holds besides meshes.
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readDocument, trianglesOf } from '../../bench/mesh/geometry.ts'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { splitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { runner as inspect } from '../../workers/tools/inspect_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { runner as split } from '../../workers/tools/split_3d_model.ts'
import { context, gltfJson, listFiles, onlyGlb, validatorErrors } from './corpus.ts'
import { type FeatureModel, featureModels, requiredUnknownExtension } from './gltf-features.ts'

const models = featureModels()

type Doc = {
  nodes: { camera?: number; extensions?: Record<string, unknown> }[]
  meshes: {
    primitives: { attributes: Record<string, number>; targets?: unknown[]; material?: number }[]
    extras?: { targetNames?: string[] }
  }[]
  materials?: {
    extensions?: Record<string, unknown>
    occlusionTexture?: { texCoord?: number }
    pbrMetallicRoughness?: { baseColorTexture?: { extensions?: Record<string, unknown> } }
  }[]
  animations?: { samplers: { interpolation?: string }[] }[]
}

/** What optimize must carry of each feature model besides its triangles. */
const kept: Record<string, (json: Doc) => void> = {
  'camera-and-lights': (json) => {
    expect.soft(json.nodes.filter((n) => n.camera !== undefined).length, 'camera node').toBe(1)
    expect.soft(json.nodes.filter((n) => n.extensions?.KHR_lights_punctual).length, 'light nodes').toBe(2)
  },
  materials: (json) => {
    const extensions = new Set(json.materials?.flatMap((m) => Object.keys(m.extensions ?? {})))
    expect
      .soft([...extensions].sort())
      .toEqual(['KHR_materials_clearcoat', 'KHR_materials_emissive_strength', 'KHR_materials_unlit'])
    const textured = json.materials?.find((m) => m.occlusionTexture)
    expect
      .soft(
        textured?.pbrMetallicRoughness?.baseColorTexture?.extensions?.KHR_texture_transform,
        'texture transform',
      )
      .toBeDefined()
    const set = textured?.occlusionTexture?.texCoord ?? 0
    const material = json.materials?.indexOf(textured!)
    const primitive = json.meshes.flatMap((m) => m.primitives).find((p) => p.material === material)
    expect.soft(primitive?.attributes[`TEXCOORD_${set}`], 'the occlusion UV set').toBeDefined()
  },
  'vertex-colours': (json) => {
    const primitives = json.meshes.flatMap((m) => m.primitives)
    expect
      .soft(
        primitives.every((p) => p.attributes.COLOR_0 !== undefined),
        'colours',
      )
      .toBe(true)
  },
  sparse: (json) => {
    expect.soft(json.meshes[0]?.primitives[0]?.targets?.length, 'morph target').toBe(1)
    expect.soft(json.meshes[0]?.extras?.targetNames, 'target names').toEqual(['lift'])
  },
  'skin-step-cubic': (json) => {
    const kinds = json.animations?.flatMap((a) => a.samplers.map((s) => s.interpolation ?? 'LINEAR')).sort()
    expect.soft(kinds, 'interpolations').toEqual(['CUBICSPLINE', 'STEP'])
  },
  'material-variants': (json) => {
    const variants = (
      json as unknown as { extensions?: { KHR_materials_variants?: { variants: { name: string }[] } } }
    ).extensions?.KHR_materials_variants?.variants
    expect
      .soft(
        variants?.map((v) => v.name),
        'variant names',
      )
      .toEqual(['Red', 'Blue'])
    const primitive = json.meshes[0]?.primitives[0] as {
      material?: number
      extensions?: { KHR_materials_variants?: { mappings: { material: number; variants: number[] }[] } }
    }
    const colour = (m: number | undefined) =>
      (json.materials?.[m ?? -1] as { pbrMetallicRoughness?: { baseColorFactor?: number[] } } | undefined)
        ?.pbrMetallicRoughness?.baseColorFactor
    const mappings = primitive.extensions?.KHR_materials_variants?.mappings ?? []
    expect
      .soft(
        mappings.map((m) => [m.variants, colour(m.material)]),
        'mappings',
      )
      .toEqual([
        [[0], [1, 0, 0, 1]],
        [[1], [0, 0, 1, 1]],
      ])
  },
  'lines-and-points': (json) => {
    const modes = json.meshes.flatMap((m) => m.primitives.map((p) => (p as { mode?: number }).mode ?? 4))
    expect.soft(modes.sort(), 'drawing modes').toEqual([0, 1, 1, 4])
  },
  'edge-mesh': (json) => {
    const strips = json.meshes.flatMap((m) => m.primitives.filter((p) => (p as { mode?: number }).mode === 1))
    expect.soft(strips.length, 'the edges').toBe(1)
    expect
      .soft(json.nodes.filter((n) => (n as { mesh?: number }).mesh !== undefined).length, 'the nodes')
      .toBe(3)
  },
  'unknown-extension': (json) => {
    expect
      .soft(json.materials?.[0]?.extensions?.VENDOR_custom_data, 'a material extension')
      .toEqual({ tag: 7 })
  },
}

async function written(model: FeatureModel): Promise<ToolInputFile> {
  const dir = await mkdtemp(join(tmpdir(), 'kiln-features-'))
  const name = `${model.name}.${model.extension}`
  const path = join(dir, name)
  await writeFile(path, model.bytes)
  return { path, name, bytes: model.bytes.length, extension: model.extension }
}

/** The world-space box of a file's placed triangles (of its default scene). */
async function placedBox(path: string) {
  const { positions, indices } = trianglesOf(await readDocument(path))
  const min = [Infinity, Infinity, Infinity]
  const max = [-Infinity, -Infinity, -Infinity]
  for (const v of indices)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, positions[v * 3 + k]!)
      max[k] = Math.max(max[k]!, positions[v * 3 + k]!)
    }
  return { min, max, extent: Math.max(...max.map((x, k) => x - min[k]!)) }
}

describe('mesh tools on glTF features', () => {
  test('the source files are valid glTF', async () => {
    for (const model of models) {
      const input = await written(model)
      expect.soft(await validatorErrors(input.path), model.name).toEqual([])
    }
  })

  test.each(models.map((m) => [m.name, m] as const))('%s', async (_, model) => {
    const input = await written(model)
    const source = await gltfJson(input.path)

    const inspected = await inspect.run(input, {}, await context())
    expect.soft(inspected.summary.face_count, 'inspect faces').toBe(model.storedTriangles)

    const ctx = await context()
    await optimize.run(input, optimizeOptions.parse({}), ctx)
    const output = await onlyGlb(ctx.outDir)
    expect.soft(await validatorErrors(output), 'optimize validator').toEqual([])
    const [before, after] = [await placedBox(input.path), await placedBox(output)]
    for (let k = 0; k < 3; k++) {
      expect
        .soft(Math.abs(after.min[k]! - before.min[k]!), `optimize box min ${k}`)
        .toBeLessThan(before.extent * 2e-3)
      expect
        .soft(Math.abs(after.max[k]! - before.max[k]!), `optimize box max ${k}`)
        .toBeLessThan(before.extent * 2e-3)
    }
    const json = await gltfJson(output)
    for (const key of ['cameras', 'skins', 'animations'])
      expect.soft(json[key]?.length ?? 0, `optimize keeps ${key}`).toBe(source[key]?.length ?? 0)
    const lights = (j: Record<string, unknown>) =>
      (
        (j.extensions as { KHR_lights_punctual?: { lights: unknown[] } } | undefined)?.KHR_lights_punctual
          ?.lights ?? []
      ).length
    expect.soft(lights(json), 'optimize keeps lights').toBe(lights(source))
    kept[model.name]?.(json as unknown as Doc)

    const simplified = await context()
    await simplify.run(input, simplifyOptions.parse({ target_ratio: 0.5, format: 'glb' }), simplified)
    const simplifiedGlb = await onlyGlb(simplified.outDir)
    expect.soft(await validatorErrors(simplifiedGlb), 'simplify validator').toEqual([])
    const simple = await placedBox(simplifiedGlb)
    for (let k = 0; k < 3; k++)
      expect
        .soft(Math.abs(simple.max[k]! - before.max[k]!), `simplify box max ${k}`)
        .toBeLessThan(before.extent * 0.02)

    const parts = await context()
    const splitResult = await split.run(input, splitOptions.parse({ segmented: false }), parts)
    expect.soft(splitResult.summary.input_faces, 'split input faces').toBe(model.placedTriangles)
    for (const file of (await listFiles(parts.outDir)).filter((f) => f.endsWith('.glb')))
      expect.soft(await validatorErrors(join(parts.outDir, file)), `split ${file}`).toEqual([])
  })

  // Every model through the options that change what the writer does; each output is valid and
  // places the triangles where the source did (or, simplified, no further than max_error).
  const variants: [string, Record<string, unknown>][] = [
    ['keep_nodes', { keep_nodes: true }],
    ['instancing', { instancing: true }],
    ['floats', { quantize: false, compress: false }],
    ['quantized, uncompressed', { compress: false }],
    ['webp at 2 px', { textures: 'webp', max_texture_size: 2 }],
    ['ktx2', { textures: 'ktx2' }],
    ['half the faces', { simplify_ratio: 0.5 }],
  ]
  test.each(variants)('optimize with %s', async (_, options) => {
    for (const model of models) {
      const input = await written(model)
      const ctx = await context()
      await optimize.run(input, optimizeOptions.parse(options), ctx)
      const output = await onlyGlb(ctx.outDir)
      expect.soft(await validatorErrors(output), model.name).toEqual([])
      const [before, after] = [await placedBox(input.path), await placedBox(output)]
      const reach = before.extent * (options.simplify_ratio ? 0.02 : 2e-3)
      for (let k = 0; k < 3; k++)
        expect
          .soft(Math.abs(after.max[k]! - before.max[k]!), `${model.name} box max ${k}`)
          .toBeLessThan(reach)
    }
  })

  test.each([
    ['obj', { format: 'obj' }],
    ['a locked border', { format: 'glb', lock_border: true }],
    ['a tenth', { format: 'glb', target_ratio: 0.1, max_error: 0.05 }],
  ] as const)('simplify to %s', async (_, options) => {
    for (const model of models) {
      const input = await written(model)
      const ctx = await context()
      await simplify.run(input, simplifyOptions.parse(options), ctx)
      for (const file of (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb')))
        expect.soft(await validatorErrors(join(ctx.outDir, file)), model.name).toEqual([])
      expect.soft((await listFiles(ctx.outDir)).length, model.name).toBeGreaterThan(0)
    }
  })

  // The tools' own outputs as inputs: quantized, meshopt-compressed, instanced, with WebP or KTX2
  // textures (required extensions without a fallback), and each tool's result as valid again.
  test.each([
    ['webp', { textures: 'webp' }],
    ['ktx2 and instancing', { textures: 'ktx2', instancing: true }],
  ] as const)('outputs optimized with %s go through every tool again', async (_, options) => {
    for (const model of models) {
      const first = await context()
      await optimize.run(await written(model), optimizeOptions.parse(options), first)
      const path = await onlyGlb(first.outDir)
      const input = { path, name: `${model.name}.glb`, bytes: (await stat(path)).size, extension: 'glb' }
      await inspect.run(input, {}, await context())
      for (const [runner, parsed] of [
        [optimize, optimizeOptions.parse({})],
        [simplify, simplifyOptions.parse({ format: 'glb' })],
        [split, splitOptions.parse({ segmented: false })],
      ] as const) {
        const ctx = await context()
        await (runner as typeof optimize).run(input, parsed as never, ctx)
        for (const file of (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb')))
          expect.soft(await validatorErrors(join(ctx.outDir, file)), `${model.name} ${file}`).toEqual([])
      }
    }
  })

  test('split into segmented ply and glb parts', async () => {
    for (const model of models) {
      const input = await written(model)
      for (const format of ['glb', 'ply'] as const) {
        const ctx = await context()
        const { summary } = await split.run(input, splitOptions.parse({ segmented: true, format }), ctx)
        expect
          .soft(summary.exported_faces, `${model.name} ${format}`)
          .toBeLessThanOrEqual(model.placedTriangles)
        for (const file of (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb')))
          expect.soft(await validatorErrors(join(ctx.outDir, file)), `${model.name} ${file}`).toEqual([])
      }
    }
  })

  test('inspect reports points and lines, variants, and each primitive its own attribute types', async () => {
    const report = async (name: string) => {
      const model = models.find((m) => m.name === name)!
      const ctx = await context()
      await inspect.run(await written(model), {}, ctx)
      return JSON.parse(await readFile(join(ctx.outDir, 'inspection.json'), 'utf8'))
    }
    const lines = await report('lines-and-points')
    const mesh = lines.meshes[0]
    expect(mesh.points_and_lines.map((l: { mode: string; count: number }) => [l.mode, l.count])).toEqual([
      ['LINES', 2],
      ['POINTS', 3],
      ['LINES', 4],
    ])
    expect(mesh.points_and_lines[1].attribute_types).toEqual({ COLOR_0: 'VEC3:f32', POSITION: 'VEC3:f32' })
    // The lines come first in the file; the triangles' types are still the triangles'.
    expect(Object.keys(mesh.primitives[0].attribute_types).sort()).toEqual([
      'NORMAL',
      'POSITION',
      'TEXCOORD_0',
    ])
    const variants = await report('material-variants')
    expect(variants.material_variants).toEqual(['Red', 'Blue'])
    expect(variants.meshes[0].primitives[0].variant_materials).toEqual([
      { material: 0, variants: [0] },
      { material: 1, variants: [1] },
    ])
  })

  test('a point cloud is measured and inspected, and optimize refuses it saying what it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiln-features-'))
    const path = join(dir, 'scan.ply')
    const header =
      'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n'
    await writeFile(path, `${header}0 0 0\n1 0 0\n0 2 0\n`)
    const input = { path, name: 'scan.ply', bytes: (await stat(path)).size, extension: 'ply' }
    expect(await inspect.measure(input, {})).toEqual({ units: 0 })
    const { summary } = await inspect.run(input, {}, await context())
    expect(summary).toMatchObject({ face_count: 0, vertex_count: 3 })
    await expect(optimize.measure(input, optimizeOptions.parse({}))).rejects.toMatchObject({
      code: 'invalid_mesh',
      message: expect.stringContaining('points or lines'),
    })
  })

  test('a file that requires an unknown extension is refused with a clear error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiln-features-'))
    const path = join(dir, 'needs.glb')
    const bytes = requiredUnknownExtension()
    await writeFile(path, bytes)
    const input = { path, name: 'needs.glb', bytes: bytes.length, extension: 'glb' }
    await expect(optimize.run(input, optimizeOptions.parse({}), await context())).rejects.toMatchObject({
      code: 'unsupported_format',
    })
  })
})
