// Flat-shaded models through simplify and optimize (native/mesh-core/src/flat_shading.rs): machined
// parts whose faces carry their own normals simplify as their surface (before, every facet edge was
// a seam the simplifier could not move, and the parts kept almost every face), stay within
// max_error of the source, come back flat shaded, and pass the Khronos validator.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { normals, unweld } from '@gltf-transform/functions'
import { beforeAll, describe, expect, test } from 'vitest'
import { poseError } from '../../bench/mesh/pose.ts'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { context, corpusDir, hasCorpus, runToGlb, validatorErrors } from './corpus.ts'
import { flatShading, writeFacetedSphere, writeFlatParts } from './flat-model.ts'
import { extent, farthestVertex, posed } from './morph-model.ts'

let input: ToolInputFile

beforeAll(async () => {
  const ctx = await context()
  const path = join(ctx.outDir, 'parts.glb')
  await writeFlatParts(path)
  input = { path, name: 'parts.glb', bytes: (await stat(path)).size, extension: 'glb' }
})

/** The largest distance from a source vertex to the output surface, over the source's extent. */
async function deviation(output: string): Promise<number> {
  const source = await posed(input.path, [])
  return farthestVertex(source, await posed(output, [])) / extent(source)
}

describe('flat-shaded models', () => {
  test('the test model is flat shaded and valid', async () => {
    expect(await validatorErrors(input.path)).toEqual([])
    const { worstAngle, triangles } = await flatShading(input.path)
    expect(triangles).toBe(1_332)
    expect(worstAngle).toBeLessThan(0.01)
  })

  test('simplify merges facets within max_error and keeps the faces flat shaded', async () => {
    const maxError = 0.01
    const { summary, output } = await runToGlb(
      simplify,
      input,
      simplifyOptions.parse({ target_ratio: 0.25, max_error: maxError }),
    )
    expect(await validatorErrors(output)).toEqual([])
    expect(JSON.stringify(summary.notes)).toMatch(/Flat-shaded primitives/)
    // Held apart by their normals, the facets kept 1,300 of the 1,332 faces before; now 546.
    expect(summary.output_faces).toBeLessThan(0.5 * (summary.input_faces as number))
    // The summary's error is the deviation measured, not the collapse error (5 times smaller on
    // such edges): the same figure as this test's own measure, within float rounding.
    const measured = await deviation(output)
    expect(measured).toBeLessThanOrEqual(maxError * 1.001)
    expect(summary.error as number).toBeGreaterThanOrEqual(measured * 0.999)
    expect(summary.error as number).toBeLessThanOrEqual(maxError)
    const { worstAngle, triangles } = await flatShading(output)
    expect(triangles).toBe(summary.output_faces)
    expect(worstAngle).toBeLessThan(1.5)
  })

  test('optimize with simplify_ratio does the same, quantized and compressed', async () => {
    const { summary, output } = await runToGlb(
      optimize,
      input,
      optimizeOptions.parse({ simplify_ratio: 0.25 }),
    )
    expect(await validatorErrors(output)).toEqual([])
    expect(JSON.stringify(summary.notes)).toMatch(/Flat-shaded primitives/)
    const faces = (at: unknown) => (at as { faces: number }).faces
    expect(faces(summary.after)).toBeLessThan(0.5 * faces(summary.before))
    // optimize simplifies within 1 % of each mesh; the parts are a fifth of the scene or less.
    expect(await deviation(output)).toBeLessThanOrEqual(0.01)
    // Octahedral 8-bit normals and the position grid move each a little.
    expect((await flatShading(output)).worstAngle).toBeLessThan(4)
  })
})

describe('a fine faceted sphere', () => {
  test('of 57,120 faces, neighbours a degree or two apart, simplifies as a surface and stays flat', async () => {
    const path = join((await context()).outDir, 'sphere.glb')
    await writeFacetedSphere(path, 240, 120)
    const sphere = { path, name: 'sphere.glb', bytes: (await stat(path)).size, extension: 'glb' }
    expect((await flatShading(path)).worstAngle).toBeLessThan(0.01)
    const { summary, output } = await runToGlb(
      simplify,
      sphere,
      simplifyOptions.parse({ target_ratio: 0.1, max_error: 0.01 }),
    )
    expect(await validatorErrors(output)).toEqual([])
    expect(JSON.stringify(summary.notes)).toMatch(/Flat-shaded primitives/)
    // Where merging near-equal normals first would pin a surface: native/mesh-core/tests/flat_simplify.rs.
    expect(summary.output_faces).toBeLessThan(0.15 * (summary.input_faces as number))
    expect((await flatShading(output)).worstAngle).toBeLessThan(1.5)
  })
})

describe.runIf(hasCorpus)('a flat-shaded skinned model', () => {
  test('CesiumMan with face normals simplifies in its poses and at rest, and stays flat shaded', async () => {
    const path = join((await context()).outDir, 'CesiumManFlat.glb')
    const io = new NodeIO().registerExtensions(ALL_EXTENSIONS)
    const doc = await io.read(join(corpusDir, 'glb/CesiumMan.glb'))
    await doc.transform(unweld(), normals({ overwrite: true }))
    await io.write(path, doc)
    const flat = { path, name: 'CesiumManFlat.glb', bytes: (await stat(path)).size, extension: 'glb' }
    expect((await flatShading(path)).worstAngle).toBeLessThan(0.01)
    const maxError = 0.01
    const { summary, output } = await runToGlb(
      simplify,
      flat,
      simplifyOptions.parse({ target_ratio: 0.1, max_error: maxError }),
    )
    expect(await validatorErrors(output)).toEqual([])
    expect(JSON.stringify(summary.notes)).toMatch(/Flat-shaded primitives/)
    expect(JSON.stringify(summary.notes)).toMatch(/simplified as their animations pose them/)
    // 756 faces of 4,672 (the smooth model keeps 864), every pose within the bound.
    expect(summary.output_faces).toBeLessThan(0.2 * (summary.input_faces as number))
    expect(await poseError(path, output)).toBeLessThanOrEqual(maxError)
    const { worstAngle } = await flatShading(output)
    expect(worstAngle).toBeLessThan(1.5)
  })
})
