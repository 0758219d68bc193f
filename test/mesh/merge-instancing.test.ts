// Merging meshes and keeping instances: optimize and simplify merge the meshes of static nodes into
// one world-space mesh by default, and what the user sees must not change: the same world-space
// triangles (within the quantization step), each with the same material and winding. Animated and
// skinned nodes keep their meshes, a mesh placed by many nodes stays one shared mesh, and
// keep_nodes keeps the node tree and its names. Every output passes the Khronos validator.
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { type Document, NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS, type InstancedMesh } from '@gltf-transform/extensions'
import { uninstance } from '@gltf-transform/functions'
import { MeshoptDecoder } from 'meshoptimizer'
import { describe, expect, test } from 'vitest'
import { instancedMesh, manySmallMeshes, writeDocument } from '../../bench/mesh/generated.ts'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { simplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { runner as simplify } from '../../workers/tools/simplify_3d_model.ts'
import { context, corpusDir, gltfJson, hasCorpus, listFiles, validatorErrors } from './corpus.ts'

interface Triangle {
  material: string
  corners: number[][]
}

async function io(): Promise<NodeIO> {
  await MeshoptDecoder.ready
  return new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
}

/** Every triangle of the scene in world space, with its material's name, corners in stored order;
 * EXT_mesh_gpu_instancing instances are expanded into nodes first, as a viewer would draw them. */
async function worldTriangles(path: string): Promise<Triangle[]> {
  const doc = await (await io()).read(path)
  await doc.transform(uninstance())
  const out: Triangle[] = []
  for (const node of doc.getRoot().listNodes()) {
    const m = node.getWorldMatrix()
    for (const prim of node.getMesh()?.listPrimitives() ?? []) {
      const pos = prim.getAttribute('POSITION')!
      const idx = prim.getIndices()
      const corner = (i: number) => {
        const v = pos.getElement(idx ? idx.getScalar(i) : i, [0, 0, 0])
        return [0, 1, 2].map((r) => m[r]! * v[0]! + m[4 + r]! * v[1]! + m[8 + r]! * v[2]! + m[12 + r]!)
      }
      const count = idx ? idx.getCount() : pos.getCount()
      const material = prim.getMaterial()?.getName() ?? ''
      for (let i = 0; i < count; i += 3) {
        const corners = [corner(i), corner(i + 1), corner(i + 2)]
        // Zero-area triangles show nothing, and the tools drop them.
        if (area(corners) > 1e-12) out.push({ material, corners })
      }
    }
  }
  return out
}

function area([a, b, c]: number[][]): number {
  const u = [0, 1, 2].map((d) => b![d]! - a![d]!)
  const v = [0, 1, 2].map((d) => c![d]! - a![d]!)
  return (
    Math.hypot(u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!) /
    2
  )
}

/** Whether a triangle's shortest edge or its height is within `tolerance`. */
function sliver(corners: number[][], tolerance: number): boolean {
  const edges = [0, 1, 2].map((k) =>
    Math.hypot(...[0, 1, 2].map((d) => corners[(k + 1) % 3]![d]! - corners[k]![d]!)),
  )
  return Math.min(...edges) <= tolerance || (2 * area(corners)) / Math.max(...edges) <= tolerance
}

const close = (a: number[], b: number[], tolerance: number) =>
  a.every((v, k) => Math.abs(v - b[k]!) <= tolerance)

/** The same triangles as multisets: each output triangle matches one unused input triangle of the same
 * material whose corners are within `tolerance` in the same cyclic order (so facing is kept too). */
function unmatched(input: Triangle[], output: Triangle[], tolerance: number): number {
  const cell = tolerance * 50
  const key = (t: Triangle) => {
    const c = [0, 1, 2].map((d) =>
      Math.floor((t.corners[0]![d]! + t.corners[1]![d]! + t.corners[2]![d]!) / 3 / cell),
    )
    return c
  }
  const buckets = new Map<string, Triangle[]>()
  for (const t of input) {
    const k = key(t).join(',')
    buckets.get(k)?.push(t) ?? buckets.set(k, [t])
  }
  let missing = 0
  for (const t of output) {
    const [x, y, z] = key(t)
    let found = false
    for (let dx = -1; dx <= 1 && !found; dx++)
      for (let dy = -1; dy <= 1 && !found; dy++)
        for (let dz = -1; dz <= 1 && !found; dz++) {
          const bucket = buckets.get(`${x! + dx},${y! + dy},${z! + dz}`) ?? []
          const at = bucket.findIndex(
            (s) =>
              s.material === t.material &&
              [0, 1, 2].some((r) =>
                [0, 1, 2].every((k) => close(s.corners[(k + r) % 3]!, t.corners[k]!, tolerance)),
              ),
          )
          if (at >= 0) {
            bucket.splice(at, 1)
            found = true
          }
        }
    if (!found) missing++
  }
  // Input triangles nothing matched: only those with two corners, or a corner and the opposite
  // edge, within the tolerance may go (they can collapse to zero area on the position grid, and
  // zero-area triangles are dropped).
  for (const left of buckets.values()) missing += left.filter((t) => !sliver(t.corners, tolerance)).length
  return missing
}

async function written(
  name: string,
  doc: Document,
): Promise<{ path: string; name: string; bytes: number; extension: string }> {
  const ctx = await context()
  const path = join(ctx.outDir, name)
  await writeDocument(path, doc)
  return { path, name, bytes: 0, extension: 'glb' }
}

async function optimized(input: Awaited<ReturnType<typeof written>>, options: object) {
  const ctx = await context()
  const { summary } = await optimize.run(input, optimizeOptions.parse(options), ctx)
  const [glb] = (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb'))
  const path = join(ctx.outDir, glb!)
  return { summary, path, doc: await (await io()).read(path) }
}

/** An instance's tolerance: its rock (3.4 units as drawn at most) is on a grid of 1/16383 of its size;
 * compressed instance transforms add up to half a step of translation and, through 16-bit
 * quaternions, about a step at the rock's far side (write/instancing.rs): three steps in all. */
const instanceTolerance = (3.5 / 16383) * 3

/** Scene-size tolerance: a few steps of the default position grid, 1/16383 of the 40-unit scene. */
const tolerance = (40 / 16383) * 3

describe('merging static meshes', () => {
  test('many small meshes become one mesh with a primitive per material, the same triangles in world space', async () => {
    const input = await written('parts.glb', manySmallMeshes(40))
    const { summary, path, doc } = await optimized(input, {})
    expect(doc.getRoot().listMeshes()).toHaveLength(1)
    expect(doc.getRoot().listMeshes()[0]!.listPrimitives()).toHaveLength(4)
    expect(
      doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getMesh()),
    ).toHaveLength(1)
    expect((summary.notes as string[]).join(' ')).toMatch(
      /Merged 40 static meshes \(40 primitives\) into one mesh of 4/,
    )
    const before = await worldTriangles(input.path)
    const after = await worldTriangles(path)
    expect(unmatched(before, after, tolerance)).toBe(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('the comparison can fail: a moved node is found out', async () => {
    const doc = manySmallMeshes(10)
    const input = await written('parts.glb', doc)
    doc.getRoot().listNodes()[3]!.setTranslation([100, 0, 0])
    const moved = await written('moved.glb', doc)
    expect(
      unmatched(await worldTriangles(input.path), await worldTriangles(moved.path), tolerance),
    ).toBeGreaterThan(0)
  })

  test('keep_nodes keeps every node, its name and its mesh', async () => {
    const input = await written('parts.glb', manySmallMeshes(12))
    const { summary, path, doc } = await optimized(input, { keep_nodes: true })
    const names = doc
      .getRoot()
      .listNodes()
      .map((n) => n.getName())
    for (let i = 0; i < 12; i++) expect(names).toContain(`part-${i}`)
    expect(doc.getRoot().listMeshes()).toHaveLength(12)
    expect(
      doc
        .getRoot()
        .listScenes()[0]!
        .listChildren()
        .map((n) => n.getName())
        .filter(Boolean),
    ).toHaveLength(12)
    expect((summary.notes as string[]).join(' ')).not.toMatch(/Merged/)
    expect(unmatched(await worldTriangles(input.path), await worldTriangles(path), tolerance)).toBe(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('a mesh placed by many nodes stays one shared mesh, every placement where it was', async () => {
    const input = await written('rocks.glb', instancedMesh(25))
    const { path, doc } = await optimized(input, {})
    expect(doc.getRoot().listMeshes()).toHaveLength(1)
    expect(
      doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getMesh()),
    ).toHaveLength(25)
    const before = await worldTriangles(input.path)
    const after = await worldTriangles(path)
    expect(unmatched(before, after, (80 / 16383) * 3)).toBe(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('a shared mesh keeps the precision of its own size: every placement within a step of 1/16383 of it', async () => {
    const doc = instancedMesh(25)
    const input = await written('rocks.glb', doc)
    const position = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('POSITION')!
    const [min, max] = [position.getMin([]), position.getMax([])]
    const ownExtent = Math.max(...[0, 1, 2].map((k) => max[k]! - min[k]!))
    const largestScale = Math.max(
      ...doc
        .getRoot()
        .listNodes()
        .map((n) => Math.max(...n.getScale())),
    )
    // One step of 1/16383 of the rock as drawn at its largest (gltfpack's 14 bits over the box of
    // the stored mesh): rounding moves a corner by at most half a local step per axis, √3/2 of a
    // step after any rotation. A grid over the world box would be 1/16383 of the 50-unit field.
    const ownStep = (ownExtent * largestScale) / 16383
    const sceneStep = 50 / 16383
    expect(ownStep).toBeLessThan(sceneStep / 8)
    const { path } = await optimized(input, {})
    const before = await worldTriangles(input.path)
    const after = await worldTriangles(path)
    expect(after.length).toBe(before.length)
    expect(unmatched(before, after, ownStep)).toBe(0)
    // The comparison is sharp enough to see the rounding itself: at an eighth of a step it fails.
    expect(unmatched(before, after, ownStep / 8)).toBeGreaterThan(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('instancing draws the placements through EXT_mesh_gpu_instancing, every instance where it was', async () => {
    const doc = instancedMesh(60)
    const input = await written('rocks.glb', doc)
    const before = await worldTriangles(input.path)
    for (const options of [{ instancing: true }, { instancing: true, quantize: false, compress: false }]) {
      const { summary, path, doc: out } = await optimized(input, options)
      const nodes = out.getRoot().listNodes()
      expect(nodes).toHaveLength(1)
      const batch = nodes[0]!.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')
      expect(batch?.getAttribute('TRANSLATION')?.getCount()).toBe(60)
      expect(batch?.getAttribute('ROTATION')?.getCount()).toBe(60)
      expect(batch?.getAttribute('SCALE')?.getCount()).toBe(60)
      const json = await gltfJson(path)
      expect(json.extensionsUsed).toContain('EXT_mesh_gpu_instancing')
      expect(json.extensionsRequired).toContain('EXT_mesh_gpu_instancing')
      expect(summary.extensions).toContain('EXT_mesh_gpu_instancing')
      expect((summary.notes as string[]).join(' ')).toMatch(/Drew 60 placement\(s\) of 1 shared mesh/)
      const after = await worldTriangles(path)
      expect(after.length).toBe(before.length)
      // The same world-space triangles as the 60 nodes drew, within a few steps of the rock's own grid.
      expect(unmatched(before, after, instanceTolerance)).toBe(0)
      expect(await validatorErrors(path)).toEqual([])
    }
  })

  test('instancing is off by default, keep_nodes turns it off, and unfit placements keep their nodes', async () => {
    const doc = instancedMesh(12)
    const rocks = doc.getRoot().listNodes()
    // A mirrored rock and one with a child cannot be instances.
    rocks[0]!.setScale([-1, 1, 1])
    rocks[1]!.addChild(
      doc.createNode('pebble').setMesh(doc.getRoot().listMeshes()[0]!).setTranslation([0, 1, 0]),
    )
    const input = await written('rocks.glb', doc)
    const before = await worldTriangles(input.path)
    const plain = await optimized(input, {})
    expect(
      plain.doc
        .getRoot()
        .listNodes()
        .some((n) => n.getExtension('EXT_mesh_gpu_instancing')),
    ).toBe(false)
    const kept = await optimized(input, { instancing: true, keep_nodes: true })
    expect(
      kept.doc
        .getRoot()
        .listNodes()
        .some((n) => n.getExtension('EXT_mesh_gpu_instancing')),
    ).toBe(false)
    expect((kept.summary.notes as string[]).join(' ')).toMatch(/instancing was not applied: keep_nodes/)
    const { path, doc: out } = await optimized(input, { instancing: true })
    const batches = out
      .getRoot()
      .listNodes()
      .map((n) => n.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing'))
      .filter((b) => b !== null)
    expect(batches).toHaveLength(1)
    // 12 rocks and a pebble: the mirrored rock and the pebble's parent stay nodes; the pebble,
    // static and childless, is an instance like the other ten.
    expect(batches[0]!.getAttribute('TRANSLATION')?.getCount()).toBe(11)
    expect(
      out
        .getRoot()
        .listNodes()
        .filter((n) => n.getMesh()),
    ).toHaveLength(3)
    expect(unmatched(before, await worldTriangles(path), instanceTolerance)).toBe(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test('an animated node and the nodes below it keep their meshes; the static rest merges', async () => {
    const doc = manySmallMeshes(6)
    const nodes = doc.getRoot().listNodes()
    const [spinning, rider] = [nodes[0]!, nodes[1]!]
    doc.getRoot().listScenes()[0]!.removeChild(rider)
    spinning.addChild(rider)
    const buffer = doc.getRoot().listBuffers()[0]!
    const sampler = doc
      .createAnimationSampler()
      .setInput(
        doc
          .createAccessor()
          .setType('SCALAR')
          .setArray(new Float32Array([0, 1]))
          .setBuffer(buffer),
      )
      .setOutput(
        doc
          .createAccessor()
          .setType('VEC4')
          .setArray(new Float32Array([0, 0, 0, 1, 0, 1, 0, 0]))
          .setBuffer(buffer),
      )
    doc
      .createAnimation('spin')
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(spinning).setTargetPath('rotation').setSampler(sampler),
      )
    const input = await written('spinning.glb', doc)
    const { path, doc: out } = await optimized(input, {})
    const byName = (name: string) =>
      out
        .getRoot()
        .listNodes()
        .find((n) => n.getName() === name)
    // A quantized mesh sits on an unnamed child whose transform undoes its grid.
    const meshOf = (name: string) =>
      byName(name)?.getMesh() ??
      byName(name)
        ?.listChildren()
        .find((c) => !c.getName() && c.getMesh())
        ?.getMesh()
    expect(meshOf('part-0')).toBeTruthy()
    expect(meshOf('part-1')).toBeTruthy()
    expect(byName('part-1')?.getParentNode()).toBe(byName('part-0'))
    // parts 2..5 merged: two kept meshes plus the merged one.
    expect(out.getRoot().listMeshes()).toHaveLength(3)
    expect(out.getRoot().listAnimations()[0]!.listChannels()[0]!.getTargetNode()).toBe(byName('part-0'))
    expect(unmatched(await worldTriangles(input.path), await worldTriangles(path), tolerance)).toBe(0)
    expect(await validatorErrors(path)).toEqual([])
  })

  test.skipIf(!hasCorpus)('a skinned, animated model is left as it is', async () => {
    const input = {
      path: join(corpusDir, 'glb/CesiumMan.glb'),
      name: 'CesiumMan.glb',
      bytes: 0,
      extension: 'glb',
    }
    const { summary, path, doc } = await optimized(input, {})
    expect((summary.notes as string[]).join(' ')).not.toMatch(/Merged/)
    expect(doc.getRoot().listSkins()).toHaveLength(1)
    expect(
      doc
        .getRoot()
        .listNodes()
        .find((n) => n.getSkin())
        ?.getMesh(),
    ).toBeTruthy()
    expect(await validatorErrors(path)).toEqual([])
  })

  test('simplify merges too, and keep_nodes stops it', async () => {
    const input = await written('parts.glb', manySmallMeshes(20))
    for (const keep_nodes of [false, true]) {
      const ctx = await context()
      await simplify.run(input, simplifyOptions.parse({ target_ratio: 0.5, format: 'glb', keep_nodes }), ctx)
      const [glb] = (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb'))
      const doc = await (await io()).read(join(ctx.outDir, glb!))
      expect(doc.getRoot().listMeshes()).toHaveLength(keep_nodes ? 20 : 1)
      expect(await validatorErrors(join(ctx.outDir, glb!))).toEqual([])
    }
  })
})

describe('position_bits', () => {
  test('sets the grid: every corner within a step of 1/(2^bits - 1) of the scene, coarser grids smaller', async () => {
    const input = await written('parts.glb', manySmallMeshes(40))
    const before = await worldTriangles(input.path)
    // The parts merge into one world-space mesh, so the stored box is the scene's world box.
    const corners = before.flatMap((t) => t.corners)
    const extent = Math.max(
      ...[0, 1, 2].map(
        (k) => Math.max(...corners.map((c) => c[k]!)) - Math.min(...corners.map((c) => c[k]!)),
      ),
    )
    const bytes: number[] = []
    for (const position_bits of [10, 14, 16]) {
      const { path } = await optimized(input, { position_bits })
      const after = await worldTriangles(path)
      const step = extent / (2 ** position_bits - 1)
      // Rounding to the nearest step moves a corner by half a step per axis; a sliver thinner
      // than about a step can collapse onto a line and go, so the bound is one step.
      expect(unmatched(before, after, step)).toBe(0)
      // Sharp enough to see the rounding itself: at an eighth of a step it fails.
      expect(unmatched(before, after, step / 8)).toBeGreaterThan(0)
      expect(await validatorErrors(path)).toEqual([])
      bytes.push(statSync(path).size)
    }
    expect(bytes[0]).toBeLessThan(bytes[1]!)
    expect(bytes[1]).toBeLessThan(bytes[2]!)
  })

  test('outside 10..16 or not an integer is refused by the catalog', () => {
    for (const position_bits of [9, 17, 14.5, '14']) {
      expect(optimizeOptions.safeParse({ position_bits }).success).toBe(false)
    }
    expect(optimizeOptions.parse({}).position_bits).toBe(14)
  })
})
