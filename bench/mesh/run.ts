// Mesh benchmark: kiln against gltfpack and @gltf-transform/cli, measured in the same run, on
// corpus models and a generated ~1 M triangle mesh (the simplify limit). Every tool runs as a process on the same
// GLB input (kiln as `kiln-mesh`, the command-line front end of the same Rust core the workers
// load as an addon). Prints time, output size and surface error (original vertices to the simplified
// surface, relative to the bounding-box diagonal) with kiln/peer ratios (< 1 means kiln is
// smaller, faster or more accurate). Not a test: absolute times depend on the machine.
//   node bench/mesh/run.ts [--quick]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { coreOptions, type MeshTool } from '../../native/mesh.ts'
import { readTriangles, surfaceError, writeGeneratedSphere } from './geometry.ts'

const root = resolve(import.meta.dirname, '../..')
const corpus = resolve(root, '../shared/corpus')
const work = join(root, 'bench/.out/mesh')
const bin = (name: string) => join(root, 'node_modules/.bin', name)
const node = process.execPath
const quick = process.argv.includes('--quick')

function timed(command: string, args: string[]): number {
  const started = performance.now()
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  return ms
}

const kilnMesh = join(root, 'native/target/release/kiln-mesh')
if (!existsSync(kilnMesh)) {
  console.error('building kiln-mesh (cargo build --release -p mesh-cli)')
  const built = spawnSync(
    'cargo',
    ['build', '--release', '--manifest-path', join(root, 'native/Cargo.toml'), '-p', 'mesh-cli'],
    {
      stdio: 'inherit',
    },
  )
  if (built.status !== 0) process.exit(built.status ?? 1)
}
// kiln-mesh reads complete options: the catalog's defaults and face limit, as the workers send them.
const kiln = (tool: MeshTool, input: string, out: string, options: object) =>
  timed(kilnMesh, [tool, input, out, JSON.stringify(coreOptions(tool, options))])
const gltfTransform = (args: string[]) => timed(node, [bin('gltf-transform'), ...args])
const gltfpack = (args: string[]) => timed(node, [bin('gltfpack'), ...args])

function onlyGlb(dir: string): string {
  const file = readdirSync(dir).find((f) => f.endsWith('.glb'))
  if (!file) throw new Error(`no GLB in ${dir}`)
  return join(dir, file)
}

async function inputs(): Promise<string[]> {
  mkdirSync(work, { recursive: true })
  const list = ['glb/CesiumMan.glb', 'glb/ShapeCollection.glb', 'glb/SheenCloth.glb']
    .map((f) => join(corpus, f))
    .filter(existsSync)
  const bunny = join(work, 'bunny.glb')
  if (!existsSync(bunny) && existsSync(join(corpus, 'obj/stanford-bunny.obj'))) {
    const dir = join(work, 'bunny-prep')
    kiln('optimize', join(corpus, 'obj/stanford-bunny.obj'), dir, { compress: false, quantize: false })
    spawnSync('cp', [onlyGlb(dir), bunny])
  }
  if (existsSync(bunny)) list.push(bunny)
  const generated = join(work, `sphere-${quick ? '200k' : '1m'}.glb`)
  if (!existsSync(generated)) await writeGeneratedSphere(generated, quick ? 200_000 : 990_000)
  list.push(generated)
  return list
}

interface Row {
  model: string
  task: string
  tool: string
  ms: number
  bytes: number
  error: number | null
}

const rows: Row[] = []

async function measure(
  model: string,
  task: string,
  tool: string,
  ms: number,
  output: string,
  original: string | null,
) {
  const error = original ? surfaceError(await readTriangles(original), await readTriangles(output)).max : null
  rows.push({ model, task, tool, ms, bytes: statSync(output).size, error })
}

for (const input of await inputs()) {
  const model = basename(input)
  const faces = (await readTriangles(input)).indices.length / 3
  const dir = (name: string) => {
    const d = join(work, 'runs', model, name)
    mkdirSync(d, { recursive: true })
    return d
  }
  console.error(`${model}: ${faces} triangles`)

  // simplify to a quarter within 1% error
  let d = dir('simplify-kiln')
  let ms = kiln('simplify', input, d, { target_ratio: 0.25, max_error: 0.01, format: 'glb' })
  await measure(model, 'simplify 0.25', 'kiln', ms, onlyGlb(d), input)
  d = dir('simplify-gltfpack')
  ms = gltfpack(['-i', input, '-o', join(d, 'out.glb'), '-si', '0.25', '-se', '0.01', '-noq'])
  await measure(model, 'simplify 0.25', 'gltfpack', ms, join(d, 'out.glb'), input)
  // -kn keeps the node tree as kiln does; by default gltfpack merges meshes into world space.
  d = dir('simplify-gltfpack-kn')
  ms = gltfpack(['-i', input, '-o', join(d, 'out.glb'), '-si', '0.25', '-se', '0.01', '-noq', '-kn'])
  await measure(model, 'simplify 0.25', 'gltfpack -kn', ms, join(d, 'out.glb'), input)
  d = dir('simplify-gltf-transform')
  ms = gltfTransform(['simplify', input, join(d, 'out.glb'), '--ratio', '0.25', '--error', '0.01'])
  await measure(model, 'simplify 0.25', 'gltf-transform', ms, join(d, 'out.glb'), input)

  // optimize: quantize + meshopt compression, no simplification
  d = dir('optimize-kiln')
  ms = kiln('optimize', input, d, {})
  await measure(model, 'optimize', 'kiln', ms, onlyGlb(d), input)
  d = dir('optimize-gltfpack')
  ms = gltfpack(['-i', input, '-o', join(d, 'out.glb'), '-c'])
  await measure(model, 'optimize', 'gltfpack', ms, join(d, 'out.glb'), input)
  d = dir('optimize-gltfpack-kn')
  ms = gltfpack(['-i', input, '-o', join(d, 'out.glb'), '-c', '-kn'])
  await measure(model, 'optimize', 'gltfpack -kn', ms, join(d, 'out.glb'), input)
  d = dir('optimize-gltf-transform')
  ms = gltfTransform([
    'optimize',
    input,
    join(d, 'out.glb'),
    '--compress',
    'meshopt',
    '--texture-compress',
    'false',
    '--simplify',
    'false',
  ])
  await measure(model, 'optimize', 'gltf-transform', ms, join(d, 'out.glb'), input)

  // inspect (only where kiln's inspect limit allows)
  if (faces <= 200_000) {
    d = dir('inspect-kiln')
    rows.push({
      model,
      task: 'inspect',
      tool: 'kiln',
      ms: kiln('inspect', input, d, {}),
      bytes: 0,
      error: null,
    })
    rows.push({
      model,
      task: 'inspect',
      tool: 'gltf-transform',
      ms: gltfTransform(['inspect', input]),
      bytes: 0,
      error: null,
    })
  }
}

const fmt = (n: number | null, digits = 2) => (n === null ? '-' : n.toFixed(digits))
const ratio = (a: number | null, b: number | null, digits = 2) =>
  a === null || b === null || b === 0 ? '-' : (a / b).toFixed(digits)
console.log(
  '| model | task | tool | time ms | bytes | max error | time ratio kiln/tool | size ratio | error ratio |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
for (const r of rows) {
  const k = rows.find((x) => x.model === r.model && x.task === r.task && x.tool === 'kiln')
  const versus =
    r.tool === 'kiln' || !k
      ? ['', '', '']
      : [
          ratio(k.ms, r.ms),
          r.bytes ? ratio(k.bytes, r.bytes, 3) : '-',
          r.error === null ? '-' : ratio(k.error, r.error),
        ]
  console.log(
    `| ${r.model} | ${r.task} | ${r.tool} | ${fmt(r.ms, 0)} | ${r.bytes || '-'} | ${r.error === null ? '-' : r.error.toExponential(2)} | ${versus.join(' | ')} |`,
  )
}
console.error(`inputs and outputs kept in ${work}`)
