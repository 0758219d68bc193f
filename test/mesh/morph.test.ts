// Morph targets through optimize, simplify, split and inspect, on a morphed "face" made at test
// time (test/mesh/morph-model.ts): the output posed at several weight vectors matches the input
// posed at the same weights, target names, default weights and the weights animation survive,
// and every GLB passes the Khronos validator.
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { splitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { runner as inspect } from '../../workers/tools/inspect_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { runner as split } from '../../workers/tools/split_3d_model.ts'
import { context, onlyGlb, runToGlb, validatorErrors } from './corpus.ts'
import {
  extent,
  farthestVertex,
  meshWeights,
  morphFacts,
  posed,
  talkTimes,
  talkWeights,
  targetNames,
  writeMorphedFace,
} from './morph-model.ts'

const poses = [
  [0, 0, 0],
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
  [0.5, 0.7, 0.3],
]

let input: ToolInputFile

beforeAll(async () => {
  const ctx = await context()
  const path = join(ctx.outDir, 'face.glb')
  await writeMorphedFace(path)
  input = { path, name: 'face.glb', bytes: (await stat(path)).size, extension: 'glb' }
})

/** Per pose of `poses`, the worst distance between input and output posed surfaces, both ways, over the posed extent. */
async function poseDeviations(output: string): Promise<number[]> {
  const out: number[] = []
  for (const weights of poses) {
    const before = await posed(input.path, weights)
    const after = await posed(output, weights)
    const size = extent(before)
    out.push(Math.max(farthestVertex(after, before) / size, farthestVertex(before, after) / size))
  }
  return out
}

async function poseDeviation(output: string): Promise<number> {
  return Math.max(...(await poseDeviations(output)))
}

/**
 * A simplified output: the rest pose within the simplifier's usual reach of max_error (its
 * quadrics bound distances to planes, so a vertex of the curved sphere can sit up to about a
 * third further from the chords that replace it), and no pose further off than the rest pose:
 * the targets add no error of their own.
 */
async function expectPosesAsGoodAsRest(output: string, maxError: number) {
  const [rest, ...others] = await poseDeviations(output)
  expect(rest!).toBeLessThan(1.5 * maxError)
  for (const deviation of others) expect(deviation).toBeLessThanOrEqual(rest! + 1e-4)
}

async function expectMorphsKept(output: string) {
  expect(await validatorErrors(output)).toEqual([])
  const facts = await morphFacts(output)
  expect(facts.targetNames).toEqual(targetNames)
  expect(facts.weights.map((w) => Math.fround(w))).toEqual(meshWeights.map((w) => Math.fround(w)))
  expect(facts.targetCounts.every((n) => n === 3)).toBe(true)
  expect(facts.channelPath).toBe('weights')
  expect(facts.channelNodeHasMesh).toBe(true)
  expect(facts.times).toEqual(talkTimes)
  expect(facts.keys).toEqual(talkWeights.map((w) => Math.fround(w)))
  return facts
}

describe('morph targets', () => {
  test('the test model is what the checks expect: valid, three named targets, a weights track', async () => {
    const facts = await expectMorphsKept(input.path)
    expect(facts.faces).toBe(960)
    // The targets really move the surface, so a lost target would show in the pose comparison.
    const rest = await posed(input.path, [0, 0, 0])
    for (const weights of poses.slice(1)) {
      expect(farthestVertex(await posed(input.path, weights), rest) / extent(rest)).toBeGreaterThan(0.01)
    }
  })

  test('optimize (quantized, meshopt-compressed) keeps every pose within the position grid', async () => {
    const ctx = await context()
    const { summary } = await optimize.run(input, optimizeOptions.parse({}), ctx)
    const output = await onlyGlb(ctx.outDir)
    await expectMorphsKept(output)
    expect(JSON.stringify(summary.notes)).not.toMatch(/morph/i)
    // 16-bit grid over the scene: a step is under 1e-4 of the extent; deltas land on the grid too.
    expect(await poseDeviation(output)).toBeLessThan(2e-4)
  })

  test('welding keeps apart exactly the seam copies that differ in a target', async () => {
    const ctx = await context()
    const path = join(ctx.outDir, 'torn.glb')
    const torn = await writeMorphedFace(path, true)
    expect(torn).toBeGreaterThan(3)
    const tornInput = { path, name: 'torn.glb', bytes: (await stat(path)).size, extension: 'glb' }
    const whole = await optimize.run(input, optimizeOptions.parse({}), await context())
    const split = await optimize.run(tornInput, optimizeOptions.parse({}), await context())
    const vertices = (r: typeof whole) => (r.summary.after as { vertices: number }).vertices
    expect(vertices(split)).toBe(vertices(whole) + torn)
  })

  test('optimize without quantization or compression keeps the poses exactly', async () => {
    const ctx = await context()
    await optimize.run(input, optimizeOptions.parse({ quantize: false, compress: false }), ctx)
    const output = await onlyGlb(ctx.outDir)
    await expectMorphsKept(output)
    expect(await poseDeviation(output)).toBeLessThan(1e-6)
  })

  test('simplify holds moving vertices: every pose within the error bound, the still back simplified', async () => {
    const maxError = 0.01
    const { summary, output } = await runToGlb(
      simplify,
      input,
      simplifyOptions.parse({ target_ratio: 0.25, max_error: maxError }),
    )
    const facts = await expectMorphsKept(output)
    expect(facts.faces).toBeLessThan(960 * 0.9)
    expect(JSON.stringify(summary.notes)).toMatch(/morph targets were kept in place/)
    await expectPosesAsGoodAsRest(output, maxError)
  })

  test('optimize with simplify_ratio does the same', async () => {
    const { summary, output } = await runToGlb(
      optimize,
      input,
      optimizeOptions.parse({ simplify_ratio: 0.25 }),
    )
    const facts = await expectMorphsKept(output)
    expect(facts.faces).toBeLessThan(960 * 0.9)
    expect(JSON.stringify(summary.notes)).toMatch(/morph targets were kept in place/)
    // optimize simplifies within 1 % of the mesh size.
    await expectPosesAsGoodAsRest(output, 0.01)
  })

  test('split parts are static and say the targets were left out', async () => {
    const ctx = await context()
    const { summary } = await split.run(input, splitOptions.parse({ segmented: false }), ctx)
    expect(JSON.stringify(summary.notes)).toMatch(/3 morph target\(s\) are not carried into the parts/)
  })

  test('inspect counts the targets of each mesh', async () => {
    const ctx = await context()
    await inspect.run(input, {}, ctx)
    const report = JSON.parse(await readFile(join(ctx.outDir, 'inspection.json'), 'utf8'))
    expect(report.meshes[0].morph_targets).toBe(3)
    expect(report.meshes[0].morph_target_names).toEqual(targetNames)
    expect(report.meshes[0].primitives[0].attributes).toEqual(['NORMAL'])
  })
})
