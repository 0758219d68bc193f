// Mesh benchmark: kiln against native gltfpack (../shared/peers/gltfpack), with the npm gltfpack
// (WebAssembly) and @gltf-transform/cli for reference, all in the same run on the same GLB inputs:
// generated meshes of 1 M and 2 M triangles, generated scenes of varied structure (many small meshes,
// one mesh instanced by hundreds of nodes, skinned and animated, textured) and the corpus models.
// kiln runs as `kiln-mesh` (the command-line front end of the Rust core the workers load). Every
// tool's time is the wall time of its whole process, start-up, reading and writing included (until
// session 39 kiln's was its core's own, `timings_s.total`, which left its start-up and file
// handling out), each started from a small process of its own (launcher.ts, since session 48: forking
// the bench's own process cost about 13 ms a start); the "start" row (one triangle) shows what that
// start-up costs. Prints time, size, surface error and validator errors per row, and
// kiln/peer ratios (< 1: kiln faster, smaller or more accurate). Not a test.
//   node bench/mesh/run.ts [--quick] [--native-only] [--all-references] [--repeat=3] [--only=a,b] [--held-out] [--fresh=N]
// (--only runs the inputs whose file name contains one of the given words, e.g. --only=instanced,bunny;
// --optimize-only leaves out the simplify rows;
// --native-only leaves out the npm gltfpack and gltf-transform columns. kiln and native gltfpack
// are timed in turn on each row, each the best of at least --repeat runs (`race`); the reference
// tools run once.)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { Document } from '@gltf-transform/core'
import { validateBytes } from 'gltf-validator'
import { animationErrorRange } from '../../domain/tools/options/animation-error.ts'
import { buildKilnMesh, kilnMeshPath } from '../../native/cargo.ts'
import { coreOptions, type MeshTool } from '../../native/mesh.ts'
import { onlyWords, optimizeOnly } from './flags.ts'
import { freshModels } from './fresh.ts'
import {
  animatedArms,
  animatedBoxes,
  bakedRobots,
  instancedMesh,
  longTake,
  manySmallMeshes,
  motionCapture,
  noisySphere,
  skinnedCylinder,
  texturedMeshes,
  tinyTriangle,
  writeDocument,
} from './generated.ts'
import { skinnedCreature } from './generated-creatures.ts'
import { hardSurface, lightmappedRoom, terrain } from './generated-surfaces.ts'
import { vehicle } from './generated-vehicles.ts'
import { readTriangles, surfaceError, type Triangles } from './geometry.ts'
import { heldOutModels } from './held-out.ts'
import { poseError } from './pose.ts'
import { texcoordError } from './texcoords.ts'

const root = resolve(import.meta.dirname, '../..')
const corpus = resolve(root, '../shared/corpus')
const nativeGltfpack = resolve(root, '../shared/peers/gltfpack')
const work = join(root, 'bench/.out/mesh')
const bin = (name: string) => join(root, 'node_modules/.bin', name)
const node = process.execPath
const quick = process.argv.includes('--quick')
const nativeOnly = process.argv.includes('--native-only')
const allReferences = process.argv.includes('--all-references')
// --held-out: the held-out set (held-out.ts) instead of the usual inputs.
const heldOut = process.argv.includes('--held-out')
// --fresh=N: fresh set N (fresh.ts), every family at a structure and seed drawn from N.
const fresh = process.argv.find((a) => a.startsWith('--fresh='))?.slice(8)
if (fresh !== undefined && !/^\d+$/.test(fresh)) throw new Error('--fresh takes a whole number')
const only = onlyWords
const REFERENCE_LIMIT = 200_000
// Each timing is the best of at least this many runs (`race`): the machine is shared, and the best
// run is the one least disturbed by others' work.
const repeat = Number(process.argv.find((a) => a.startsWith('--repeat='))?.slice(9) ?? 3)

// Each tool is started and timed by launcher.ts, a small process of its own: forking this one,
// which holds the models and validator reports, cost about 13 ms a start (session 48).
const launcher = join(import.meta.dirname, 'launcher.ts')

function run(command: string, args: string[]): { ms: number; stdout: string } {
  const launched = spawnSync(node, [launcher, command, ...args], { encoding: 'utf8', maxBuffer: 1 << 29 })
  if (launched.status !== 0) throw new Error(`launcher.ts failed on ${command}: ${launched.stderr}`)
  const r = JSON.parse(launched.stdout) as {
    ms: number
    status: number | null
    stdout: string
    stderr: string
  }
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  return { ms: r.ms, stdout: r.stdout }
}

// KILN_MESH runs another build of kiln-mesh (to compare a change against the committed one).
const kilnMesh = process.env.KILN_MESH ?? kilnMeshPath()
if (!process.env.KILN_MESH) {
  // Built, or linked again as `native/build.ts` links it where `cargo test` relinked it (a no-op
  // when it is up to date): the bench times the command as users get it.
  const status = buildKilnMesh()
  if (status !== 0) process.exit(status)
}
if (!existsSync(nativeGltfpack)) throw new Error(`native gltfpack not found at ${nativeGltfpack}`)

/** kiln-mesh with the catalog's complete options, as a command line. */
function kilnCommand(tool: MeshTool, input: string, out: string, options: object): string[] {
  return [kilnMesh, tool, input, out, JSON.stringify(coreOptions(tool, options))]
}

/** kiln-mesh once; the wall time of its process, as the peers'. */
function kiln(tool: MeshTool, input: string, out: string, options: object): number {
  const [command, ...args] = kilnCommand(tool, input, out, options)
  return run(command as string, args).ms
}

// A row's two timings (kiln's and gltfpack's) are raced: the two run in turn, each at least
// --repeat times and on until each has taken RACE_SPEND ms in all (at most RACE_MOST runs), and
// each gives its best run. A row of a few milliseconds then runs about 40 times a side, one of a
// second --repeat times. Until session 51 each side ran --repeat times, one after the other, and a
// few-millisecond row's ratio moved by a tenth between two runs of the bench (skinned optimize: 1.12
// on one row, 0.92 on the next, the same kiln output).
const RACE_SPEND = 300
const RACE_MOST = 41

function race(kilnSide: string[], gltfpackSide: string[]): { kiln: number; gltfpack: number } {
  const spec = { commands: [kilnSide, gltfpackSide], runs: repeat, spend: RACE_SPEND, most: RACE_MOST }
  const launched = spawnSync(node, [launcher, '--race', JSON.stringify(spec)], { encoding: 'utf8' })
  if (launched.status !== 0) throw new Error(`launcher.ts failed on a race: ${launched.stderr}`)
  const r = JSON.parse(launched.stdout) as { ms: number[]; status: number | null; stderr: string }
  if (r.status !== 0)
    throw new Error(`${kilnSide.join(' ')} or ${gltfpackSide.join(' ')} failed: ${r.stderr}`)
  return { kiln: r.ms[0] as number, gltfpack: r.ms[1] as number }
}

function onlyGlb(dir: string): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.glb'))
  if (!file) throw new Error(`no GLB in ${dir}`)
  return join(dir, file)
}

async function generate(name: string, make: () => Document): Promise<string> {
  const path = join(work, name)
  if (!existsSync(path)) await writeDocument(path, make())
  return path
}

async function inputs(): Promise<string[]> {
  mkdirSync(work, { recursive: true })
  if (heldOut || fresh !== undefined) {
    const models = fresh !== undefined ? freshModels(Number(fresh), quick) : heldOutModels(quick)
    const list: string[] = []
    for (const [name, make] of models) list.push(await generate(name, make))
    return list
  }
  const list = [
    await generate(quick ? 'sphere-400k.glb' : 'sphere-2m.glb', () =>
      noisySphere(quick ? 400_000 : 2_000_000, 7),
    ),
    await generate(quick ? 'sphere-200k.glb' : 'sphere-1m.glb', () =>
      noisySphere(quick ? 200_000 : 990_000, 1),
    ),
    await generate('many-small-meshes.glb', () => manySmallMeshes()),
    await generate('instanced.glb', () => instancedMesh()),
    await generate('skinned.glb', () => skinnedCylinder()),
    await generate('skinned-creature.glb', () => skinnedCreature()),
    await generate('vehicle.glb', () => vehicle({ wheels: 4, bolts: 12, rings: 60, seed: 83 })),
    await generate('animated.glb', () => animatedBoxes()),
    await generate('animated-arms.glb', () => animatedArms()),
    await generate('baked-robots.glb', () => bakedRobots()),
    await generate(quick ? 'long-take-200k.glb' : 'long-take.glb', () =>
      longTake(100, quick ? 2_000 : 20_000),
    ),
    await generate(quick ? 'motion-capture-200k.glb' : 'motion-capture.glb', () =>
      motionCapture(60, quick ? 3_000 : 30_000),
    ),
    await generate('textured.glb', () => texturedMeshes()),
    await generate('terrain.glb', () => terrain()),
    await generate('hard-surface.glb', () => hardSurface()),
    await generate('lightmapped-room.glb', () => lightmappedRoom()),
  ]
  const corpusFiles = [
    'glb/CesiumMan.glb',
    'glb/ShapeCollection.glb',
    'glb/SheenCloth.glb',
    'glb/BoxTextured.glb',
    'gltf/CesiumMilkTruck/CesiumMilkTruck.gltf',
  ]
  for (const f of corpusFiles.map((f) => join(corpus, f)).filter(existsSync)) {
    if (f.endsWith('.glb')) {
      list.push(f)
      continue
    }
    // A .gltf with side files: turned into one plain GLB so every tool reads the same bytes.
    const glb = join(work, basename(f).replace(/\.gltf$/, '.glb'))
    if (!existsSync(glb)) run(node, [bin('gltf-transform'), 'copy', f, glb])
    list.push(glb)
  }
  const bunny = join(work, 'bunny.glb')
  if (!existsSync(bunny) && existsSync(join(corpus, 'obj/stanford-bunny.obj'))) {
    const dir = join(work, 'bunny-prep')
    kiln('optimize', join(corpus, 'obj/stanford-bunny.obj'), dir, { compress: false, quantize: false })
    spawnSync('cp', [onlyGlb(dir), bunny])
  }
  if (existsSync(bunny)) list.push(bunny)
  return list
}

interface Row {
  model: string
  task: string
  tool: string
  ms: number
  bytes: number
  error: number | null
  /** The largest error over poses of the input's animations (pose.ts); null without animations. */
  poseError: number | null
  /** The largest texture-coordinate shift in texels (texcoords.ts); null without textures. */
  uvError: number | null
  invalid: number | null
}

/** A GLB's JSON chunk. */
function gltfJson(path: string): { animations?: unknown[]; images?: unknown[] } {
  const glb = readFileSync(path)
  return JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8'))
}

/** Whether a GLB has animations, from its JSON chunk alone. */
const animated = (path: string) => (gltfJson(path).animations?.length ?? 0) > 0
/** Whether a GLB has images, from its JSON chunk alone. */
const textured = (path: string) => (gltfJson(path).images?.length ?? 0) > 0

const rows: Row[] = []
const originals = new Map<string, Triangles>()

async function measure(model: string, task: string, tool: string, ms: number, output: string, input: string) {
  const original = originals.get(input) ?? (await readTriangles(input))
  originals.set(input, original)
  const error = surfaceError(original, await readTriangles(output)).max
  const posed = animated(input) ? await poseError(input, output) : null
  const uvError = textured(input) ? await texcoordError(input, output) : null
  const report = await validateBytes(new Uint8Array(readFileSync(output)))
  const invalid = report.issues.messages.filter((m: { severity: number }) => m.severity === 0).length
  rows.push({
    model,
    task,
    tool,
    ms,
    bytes: statSync(output).size,
    error,
    poseError: posed,
    uvError,
    invalid,
  })
}

const SIMPLIFY_LIMIT = 1_000_000
/**
 * Runs of kiln at gltfpack's pose error (atGltfpackPoseError), how far under it a scaled run aims,
 * and how near under it is near enough.
 */
const MATCH_TRIES = 4
const MATCH_MARGIN = 0.95
const MATCH_NEAR = 0.8
/** gltfpack runs at a lowered -se to bring its simplified output to kiln's surface error. */
const SE_TRIES = 6
const simplifyTenth = { target_ratio: 0.1, max_error: 0.01, format: 'glb' }
/** kiln's animation budget at the default position bits: half a grid step of the scene (write/anim_tracks.rs `relative_budget`). */
const defaultAnimationError = 0.5 / (2 ** (coreOptions('optimize', {}).position_bits as number) - 1)

const selected = (await inputs()).filter((f) => !only || only.some((word) => basename(f).includes(word)))
for (const input of selected) {
  const model = basename(input)
  const faces = (await readTriangles(input)).indices.length / 3
  const dir = (name: string) => {
    const d = join(work, 'runs', model, name)
    mkdirSync(d, { recursive: true })
    return d
  }
  const out = (name: string) => join(dir(name), 'out.glb')
  // The reference tools are slow on the largest meshes (minutes each on a loaded 2-core machine),
  // so they run up to REFERENCE_LIMIT triangles unless --all-references.
  const references = !nativeOnly && (allReferences || faces <= REFERENCE_LIMIT)
  console.error(`${model}: ${faces} triangles`)

  // optimize: quantization and meshopt compression at the highest ratio, no simplification.
  let d = dir('optimize-kiln')
  const optimizeGltfpack = [nativeGltfpack, '-i', input, '-o', out('optimize-gltfpack'), '-cc']
  let times = race(kilnCommand('optimize', input, d, {}), optimizeGltfpack)
  await measure(model, 'optimize', 'kiln', times.kiln, onlyGlb(d), input)
  await measure(model, 'optimize', 'gltfpack', times.gltfpack, out('optimize-gltfpack'), input)
  let ms: number
  // Animation at the error gltfpack spends: kiln holds animation to half a step of the position
  // grid when it quantizes, and keeps every key exact when it does not, far finer than gltfpack's
  // 30 Hz resampling. Given gltfpack's pose error as its animation_error, does it store the same
  // motion in no more bytes, at no more error? It starts at the room gltfpack's pose error leaves
  // above kiln's own; where there is no more room than `floor` (the default budget), the default
  // stands. animation_error bounds every point's move as a fraction of the scene's extent over its
  // whole motion, for the worst a track's error can do: the pose error measured is one of each
  // pose's diagonal, and lies under the bound, far under where joints chain (fresh set 3's motion
  // capture: 0.29 of gltfpack's pose error at the room), or over it where the scene travels (its
  // two robots driving round: 1.11, session 52). So kiln runs again, up to MATCH_TRIES runs in all:
  // at animation_error scaled by how far over or under gltfpack's pose error it came (to
  // MATCH_MARGIN under it), then between the largest that held and the smallest that did not, until
  // it comes within MATCH_NEAR under it. The largest that held gives the row.
  const atGltfpackPoseError = async (
    tool: MeshTool,
    task: string,
    options: object,
    floor: number,
    gltfpackSide: string[],
  ) => {
    const [kilnRow, gltfpackRow] = rows.slice(-2) as [Row, Row]
    const limit = gltfpackRow.poseError
    if (limit === null || kilnRow.poseError === null) return
    const room = limit - kilnRow.poseError
    let animationError = room > floor ? Math.min(room, animationErrorRange.max) : null
    const matched = `${task}, animation_error = gltfpack pose error`
    const d = dir(`${tool}-matched-kiln`)
    // The run kept: the largest animation_error that held, else the last run.
    let kept: { row: Row; gltfpackMs: number } | undefined
    let [held, over] = [0, Number.POSITIVE_INFINITY]
    for (let tries = 1; ; tries++) {
      const times = race(
        kilnCommand(tool, input, d, { ...options, animation_error: animationError }),
        gltfpackSide,
      )
      await measure(model, matched, 'kiln', times.kiln, onlyGlb(d), input)
      const row = rows.pop() as Row
      const posed = row.poseError ?? 0
      if (posed <= limit || !kept) kept = { row, gltfpackMs: times.gltfpack }
      if (animationError === null || tries === MATCH_TRIES) break
      if (posed <= limit) held = animationError
      else over = animationError
      if (posed <= limit && (posed >= limit * MATCH_NEAR || held >= animationErrorRange.max)) break
      const scaled = (animationError * limit * MATCH_MARGIN) / Math.max(posed, Number.MIN_VALUE)
      const next = Math.min(
        over < Number.POSITIVE_INFINITY && held > 0 ? (held + over) / 2 : scaled,
        animationErrorRange.max,
      )
      console.log(
        `${model}: ${task} at animation_error ${animationError.toPrecision(3)} came out at ${(posed / limit).toFixed(3)}× gltfpack's pose error; again at ${next.toPrecision(3)}`,
      )
      if (next <= floor) {
        animationError = null
        kept = undefined
      } else animationError = next
    }
    rows.push(kept.row, { ...gltfpackRow, task: matched, ms: kept.gltfpackMs })
  }
  await atGltfpackPoseError('optimize', 'optimize', {}, defaultAnimationError, optimizeGltfpack)
  // Surface error made equal: where one tool's simplified output lies farther from the source than
  // the other's (by more than a percent, or float noise), that tool runs again under a lower bound
  // (gltfpack's -se, kiln's max_error): scaled by the error to reach over its own until an output
  // measures at or under it, then bisected between the largest bound that did and the smallest
  // that did not, SE_TRIES runs in all. The largest bound that did gives the row (its time raced
  // against the other tool's usual run). kiln holds every vertex within max_error of the model's size, measured; gltfpack
  // holds its own estimate, so either may lie the farther on a given model.
  const atEqualError = async (lowered: 'kiln' | 'gltfpack', kilnSide: string[], gltfpackSide: string[]) => {
    const find = (tool: string) =>
      rows.find((r) => r.model === model && r.task === 'simplify 0.1' && r.tool === tool)
    const [kilnRow, gltfpackRow] = [find('kiln'), find('gltfpack')]
    if (!kilnRow || !gltfpackRow) return
    const [farther, nearer] = lowered === 'kiln' ? [kilnRow, gltfpackRow] : [gltfpackRow, kilnRow]
    if (!farther.error || farther.error <= (nearer.error ?? 0) * 1.01 + 1e-6) return
    const target = nearer.error ?? 0
    const d = dir(`simplify-${lowered}-at-equal-error`)
    const output = lowered === 'kiln' ? () => onlyGlb(d) : () => out('simplify-gltfpack-at-kiln-error')
    const commandAt = (bound: number) =>
      lowered === 'kiln'
        ? kilnCommand('simplify', input, d, { ...simplifyTenth, max_error: bound })
        : [nativeGltfpack, '-i', input, '-o', output(), '-si', '0.1', '-se', String(bound), '-noq']
    const errorAt = async (bound: number) => {
      const [command, ...args] = commandAt(bound)
      run(command as string, args)
      return surfaceError(originals.get(input)!, await readTriangles(output())).max
    }
    let held: number | undefined
    let [strayed, error] = [simplifyTenth.max_error, farther.error]
    for (let tries = 0; tries < SE_TRIES; tries++) {
      const bound = held !== undefined ? (held + strayed) / 2 : strayed * (target / error) * 0.97
      error = await errorAt(bound)
      if (error <= target) held = bound
      else strayed = bound
    }
    if (held === undefined)
      return console.error(`${model}: ${lowered} did not reach the other's error in ${SE_TRIES} runs`)
    const bound = held
    const task = `simplify 0.1, ${lowered} at ${lowered === 'kiln' ? 'gltfpack' : 'kiln'} surface error`
    if (lowered === 'kiln') {
      const times = race(commandAt(bound), gltfpackSide)
      await measure(model, task, 'kiln', times.kiln, output(), input)
      rows.push({ ...gltfpackRow, task, ms: times.gltfpack })
      console.error(`${model}: kiln at gltfpack's surface error with max_error ${bound.toPrecision(3)}`)
    } else {
      const times = race(kilnSide, commandAt(bound))
      rows.push({ ...kilnRow, task, ms: times.kiln })
      await measure(model, task, `gltfpack -se ${bound.toPrecision(3)}`, times.gltfpack, output(), input)
    }
  }
  if (references) {
    ms = run(node, [bin('gltfpack'), '-i', input, '-o', out('optimize-gltfpack-npm'), '-cc']).ms
    await measure(model, 'optimize', 'gltfpack npm', ms, out('optimize-gltfpack-npm'), input)
    const gt = out('optimize-gltf-transform')
    ms = run(node, [
      bin('gltf-transform'),
      'optimize',
      input,
      gt,
      '--compress',
      'meshopt',
      '--texture-compress',
      'false',
      '--simplify',
      'false',
    ]).ms
    await measure(model, 'optimize', 'gltf-transform', ms, gt, input)
  }

  // GPU instancing, opt-in on both sides: kiln {instancing: true} against gltfpack -cc -mi.
  if (model.startsWith('instanced')) {
    d = dir('instancing-kiln')
    const instancingGltfpack = [nativeGltfpack, '-i', input, '-o', out('instancing-gltfpack'), '-cc', '-mi']
    times = race(kilnCommand('optimize', input, d, { instancing: true }), instancingGltfpack)
    await measure(model, 'optimize instancing', 'kiln', times.kiln, onlyGlb(d), input)
    await measure(model, 'optimize instancing', 'gltfpack', times.gltfpack, out('instancing-gltfpack'), input)
  }

  // simplify to a tenth within 1 % error, written unquantized and uncompressed on both sides.
  if (faces <= SIMPLIFY_LIMIT && !optimizeOnly) {
    d = dir('simplify-kiln')
    const simplifyKiln = kilnCommand('simplify', input, d, simplifyTenth)
    const simplifyGltfpack = [
      nativeGltfpack,
      '-i',
      input,
      '-o',
      out('simplify-gltfpack'),
      '-si',
      '0.1',
      '-se',
      '0.01',
      '-noq',
    ]
    times = race(simplifyKiln, simplifyGltfpack)
    await measure(model, 'simplify 0.1', 'kiln', times.kiln, onlyGlb(d), input)
    await measure(model, 'simplify 0.1', 'gltfpack', times.gltfpack, out('simplify-gltfpack'), input)
    await atGltfpackPoseError(
      'simplify',
      'simplify 0.1',
      simplifyTenth,
      animationErrorRange.min,
      simplifyGltfpack,
    )
    await atEqualError('gltfpack', simplifyKiln, simplifyGltfpack)
    await atEqualError('kiln', simplifyKiln, simplifyGltfpack)
    if (references) {
      const gt = out('simplify-gltf-transform')
      ms = run(node, [bin('gltf-transform'), 'simplify', input, gt, '--ratio', '0.1', '--error', '0.01']).ms
      await measure(model, 'simplify 0.1', 'gltf-transform', ms, gt, input)
    }
  }
}

// What starting a process costs: gltfpack and kiln-mesh on one triangle.
const tiny = await generate('one-triangle.glb', tinyTriangle)
const startup = (command: string, args: string[]) =>
  Math.min(...[0, 1, 2, 3, 4].map(() => run(command, args).ms))
const gltfpackStart = startup(nativeGltfpack, ['-i', tiny, '-o', join(work, 'one-triangle-out.glb'), '-cc'])
const kilnStart = startup(kilnMesh, [
  'optimize',
  tiny,
  join(work, 'one-triangle-kiln'),
  JSON.stringify(coreOptions('optimize', {})),
])

const fmt = (n: number | null, digits = 2) => (n === null ? '-' : n.toFixed(digits))
const ratio = (a: number | null, b: number | null, digits = 2) =>
  a === null || b === null || b === 0 ? '-' : (a / b).toFixed(digits)
console.log(
  '| model | task | tool | time ms | bytes | max error | pose error | uv error (texels) | validator errors | time kiln/tool | size kiln/tool | error kiln/tool | pose error kiln/tool | uv error kiln/tool |',
)
console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const r of rows) {
  const k = rows.find((x) => x.model === r.model && x.task === r.task && x.tool === 'kiln')
  const versus =
    r.tool === 'kiln' || !k
      ? ['', '', '', '', '']
      : [
          ratio(k.ms, r.ms),
          ratio(k.bytes, r.bytes, 3),
          r.error && k.error !== null ? ratio(k.error, r.error) : '-',
          r.poseError && k.poseError !== null ? ratio(k.poseError, r.poseError) : '-',
          r.uvError && k.uvError !== null ? ratio(k.uvError, r.uvError) : '-',
        ]
  const exp = (n: number | null) => (n === null ? '-' : n.toExponential(2))
  console.log(
    `| ${r.model} | ${r.task} | ${r.tool} | ${fmt(r.ms, 0)} | ${r.bytes} | ${exp(r.error)} | ${exp(r.poseError)} | ${fmt(r.uvError, 3)} | ${r.invalid ?? '-'} | ${versus.join(' | ')} |`,
  )
}

// Summary against native gltfpack: how many rows kiln wins, and the worst ratios.
for (const task of [
  'optimize',
  'optimize, animation_error = gltfpack pose error',
  'simplify 0.1',
  'simplify 0.1, animation_error = gltfpack pose error',
  'simplify 0.1, gltfpack at kiln surface error',
  'simplify 0.1, kiln at gltfpack surface error',
]) {
  const pairs = rows
    .filter((r) => r.task === task && (r.tool === 'gltfpack' || r.tool.startsWith('gltfpack -se')))
    .map((g) => [rows.find((k) => k.model === g.model && k.task === task && k.tool === 'kiln')!, g] as const)
  const worst = (f: (k: Row, g: Row) => number) => Math.max(...pairs.map(([k, g]) => f(k, g)))
  const count = (f: (k: Row, g: Row) => boolean) => pairs.filter(([k, g]) => f(k, g)).length
  console.log(
    `\n${task} vs native gltfpack over ${pairs.length} rows: time <= 1.0x on ${count((k, g) => k.ms <= g.ms)}, ` +
      `size <= 1.0x on ${count((k, g) => k.bytes <= g.bytes)}, error <= 1.0x on ${count((k, g) => (k.error ?? 0) <= (g.error ?? 0))}, ` +
      `pose error <= 1.0x on ${count((k, g) => k.poseError !== null && k.poseError <= (g.poseError ?? 0))} of ${pairs.filter(([k]) => k.poseError !== null).length} animated, ` +
      `uv error <= 1.0x on ${count((k, g) => k.uvError !== null && k.uvError <= (g.uvError ?? 0))} of ${pairs.filter(([k]) => k.uvError !== null).length} textured; ` +
      `worst time ${worst((k, g) => k.ms / g.ms).toFixed(2)}x, worst size ${worst((k, g) => k.bytes / g.bytes).toFixed(3)}x`,
  )
}
console.log(
  `\nprocess start on one triangle (best of 5): native gltfpack ${gltfpackStart.toFixed(1)} ms, kiln-mesh ${kilnStart.toFixed(1)} ms`,
)
console.error(`inputs and outputs kept in ${work}`)
