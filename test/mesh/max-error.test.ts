// simplify_3d_model's max_error is a bound on the surface, measured: on a smooth surface where the
// bound stops the collapse, the collapse error alone (meshoptimizer's sum of distances to the
// planes around a vertex) let the surface stray to 2.3 times the bound (the Princeton shapes, 1.5
// to 2.7 times). The result must keep every source vertex within max_error of the output, and
// say the deviation it measured, the same figure as this test's own measure. And max_error is a share
// of the model's size: a part the scene places twice at half its size is held to that bound, in
// the part's own units, not to a share of the part alone.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Document, NodeIO } from '@gltf-transform/core'
import { beforeAll, describe, expect, test } from 'vitest'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { context, runToGlb, validatorErrors } from './corpus.ts'
import { extent, farthestVertex, posed } from './morph-model.ts'

let input: ToolInputFile

/** A smooth height field of `n` × `n` quads over 40 units, rising and falling by up to one. */
function rollingHills(doc: Document, n: number) {
  const positions: number[] = []
  const indices: number[] = []
  for (let y = 0; y <= n; y++)
    for (let x = 0; x <= n; x++) {
      const [u, v] = [(40 * x) / n, (40 * y) / n]
      positions.push(u, v, Math.sin(u * 0.25) * Math.cos(v * 0.2))
    }
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      const a = y * (n + 1) + x
      indices.push(a, a + 1, a + n + 2, a, a + n + 2, a + n + 1)
    }
  return meshOf(doc, 'hills', positions, indices)
}

/** A lumpy ball of radius about 1 (`rings` × 2·`rings` quads, one vertex at each pole). */
function boulder(doc: Document, rings: number) {
  const positions: number[] = [0, 0, -1]
  const indices: number[] = []
  const around = 2 * rings
  for (let r = 1; r < rings; r++)
    for (let a = 0; a < around; a++) {
      const [theta, phi] = [(Math.PI * r) / rings, (2 * Math.PI * a) / around]
      const radius = 1 + 0.08 * Math.sin(3 * theta) * Math.cos(4 * phi)
      positions.push(
        radius * Math.sin(theta) * Math.cos(phi),
        radius * Math.sin(theta) * Math.sin(phi),
        -radius * Math.cos(theta),
      )
    }
  positions.push(0, 0, 1)
  const ring = (r: number, a: number) => 1 + (r - 1) * around + (a % around)
  const top = positions.length / 3 - 1
  for (let a = 0; a < around; a++) {
    indices.push(0, ring(1, a + 1), ring(1, a))
    for (let r = 1; r < rings - 1; r++)
      indices.push(
        ring(r, a),
        ring(r, a + 1),
        ring(r + 1, a + 1),
        ring(r, a),
        ring(r + 1, a + 1),
        ring(r + 1, a),
      )
    indices.push(ring(rings - 1, a), ring(rings - 1, a + 1), top)
  }
  return meshOf(doc, 'boulder', positions, indices)
}

function meshOf(doc: Document, name: string, positions: number[], indices: number[]) {
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer()
  const primitive = doc
    .createPrimitive()
    .setAttribute(
      'POSITION',
      doc.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer),
    )
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint32Array(indices)).setBuffer(buffer))
  return doc.createMesh(name).addPrimitive(primitive)
}

async function writeRollingHills(path: string, n: number): Promise<void> {
  const doc = new Document()
  doc.createScene().addChild(doc.createNode('hills').setMesh(rollingHills(doc, n)))
  await new NodeIO().write(path, doc)
}

/** The hills with a boulder placed twice on them at half its size (two nodes: not merged). */
async function writeHillsWithBoulders(path: string): Promise<void> {
  const doc = new Document()
  const scene = doc.createScene().addChild(doc.createNode('hills').setMesh(rollingHills(doc, 24)))
  const rock = boulder(doc, 24)
  for (const at of [10, 30])
    scene.addChild(
      doc.createNode(`boulder ${at}`).setMesh(rock).setTranslation([at, at, 1.5]).setScale([0.5, 0.5, 0.5]),
    )
  await new NodeIO().write(path, doc)
}

/** The boulder alone, placed once stretched to 3 × 0.5 × 1 of its size (a static mesh of its own). */
async function writeStretchedBoulder(path: string): Promise<void> {
  const doc = new Document()
  doc.createScene().addChild(doc.createNode('stretched').setMesh(boulder(doc, 24)).setScale([3, 0.5, 1]))
  await new NodeIO().write(path, doc)
}

/** Faces of the mesh named `name` in a GLB. */
async function facesOf(path: string, name: string): Promise<number> {
  const mesh = (await new NodeIO().read(path))
    .getRoot()
    .listMeshes()
    .find((m) => m.getName() === name)
  return (mesh?.listPrimitives() ?? []).reduce((n, p) => n + (p.getIndices()?.getCount() ?? 0) / 3, 0)
}

beforeAll(async () => {
  input = await written('hills.glb', (path) => writeRollingHills(path, 48))
})

/**
 * Simplifies `file` with `options` and checks what every case here holds: a valid output, every
 * source vertex within max_error of it (measured in the world, over the model's largest side), and
 * the error reported equal to that measure (to float rounding and the output's rounding).
 */
async function simplifiedWithin(file: ToolInputFile, options: { target_ratio: number; max_error: number }) {
  const { summary, output } = await runToGlb(simplify, file, simplifyOptions.parse(options))
  expect(await validatorErrors(output)).toEqual([])
  const source = await posed(file.path, [])
  const measured = farthestVertex(source, await posed(output, [])) / extent(source)
  expect(measured).toBeLessThanOrEqual(options.max_error * 1.001)
  expect(summary.error as number).toBeLessThanOrEqual(options.max_error)
  expect(Math.abs((summary.error as number) - measured)).toBeLessThan(options.max_error * 0.01)
  return { summary, output }
}

/** A model written by `write` into the test's output folder, as a tool input. */
async function written(name: string, write: (path: string) => Promise<void>): Promise<ToolInputFile> {
  const path = join((await context()).outDir, name)
  await write(path)
  return { path, name, bytes: (await stat(path)).size, extension: 'glb' }
}

describe('max_error on a smooth surface', () => {
  test.each([0.01, 0.02])('simplify to 1 %% of the faces within max_error %s, measured', async (maxError) => {
    const { summary } = await simplifiedWithin(input, { target_ratio: 0.01, max_error: maxError })
    // The bound, not the face target, stopped it; it still simplified.
    expect(summary.target_reached).toBe(false)
    expect(summary.output_faces).toBeLessThan(0.6 * (summary.input_faces as number))
  })
})

describe('max_error is a share of the model, in every part', () => {
  test('a part placed twice at half its size is held to the model’s bound, in its own units', async () => {
    const boulders = await written('hills-with-boulders.glb', writeHillsWithBoulders)
    const { output } = await simplifiedWithin(boulders, { target_ratio: 0.05, max_error: 0.01 })
    // The boulder (2,208 faces, 1 unit across in the world, the model 40) may stray by 0.4 of the
    // world's units, 0.8 of its own: it reaches its face target. Held to 1 % of its own size, as
    // before, it kept 942.
    const kept = await facesOf(output, 'boulder')
    expect(kept).toBeGreaterThan(0)
    expect(kept).toBeLessThanOrEqual(Math.floor(2208 * 0.05))
  })
})

describe('max_error in a mesh its node stretches unevenly', () => {
  test('the bound is the same length every way the scene shows the mesh', async () => {
    const stretched = await written('stretched-boulder.glb', writeStretchedBoulder)
    const { summary } = await simplifiedWithin(stretched, { target_ratio: 0.05, max_error: 0.01 })
    // Held in the boulder's own units to a share of its own size, it was a sixth of the bound
    // across its flattened side and kept 942 faces (252 now).
    expect(summary.output_faces as number).toBeLessThan(942 / 2)
  })
})
