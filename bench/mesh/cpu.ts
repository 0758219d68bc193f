// CPU time of kiln-mesh against native gltfpack, whole process against whole process (start-up,
// reading the file, the work, writing the output), measured with `perf stat -e task-clock` so
// that other work on a shared machine shows up much less than in wall time. Each round runs the
// tools back to back; a row reports the best round of each. With KILN_MESH_BASE it also runs
// another kiln-mesh build (the committed one, say) and checks that both write the same bytes:
// a speed change that changes the output is reported as such.
// Reads the inputs bench/mesh/run.ts generated (run it once first), the corpus GLBs, the corpus
// OBJs as uploaded and three larger OBJs it writes from generated inputs (both tools read OBJ
// text themselves). With --wall it measures the wall time of the same whole processes instead:
// what a caller waits, with kiln's second core counted as free. Not a test.
//   node bench/mesh/cpu.ts [--rounds=5] [--only=a,b] [--optimize-only] [--wall]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { kilnMeshPath } from '../../native/cargo.ts'
import { coreOptions } from '../../native/mesh.ts'
import { onlyWords, optimizeOnly } from './flags.ts'

const root = resolve(import.meta.dirname, '../..')
const inputs = join(root, 'bench/.out/mesh')
const work = join(inputs, 'cpu')
const gltfpack = resolve(root, '../shared/peers/gltfpack')
const kiln = process.env.KILN_MESH ?? kilnMeshPath()
const base = process.env.KILN_MESH_BASE
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 5)
const only = onlyWords
const wall = process.argv.includes('--wall')

/** CPU milliseconds (user + system) of one run of the command, from perf's task-clock; with
 * --wall, its wall milliseconds. */
function cpuMs(command: string, args: string[]): number {
  if (wall) {
    const started = performance.now()
    const r = spawnSync(command, args, { stdio: 'ignore' })
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`)
    return performance.now() - started
  }
  const r = spawnSync('perf', ['stat', '-x', ',', '-e', 'task-clock', command, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`)
  const line = r.stderr.split('\n').find((l) => l.includes('task-clock'))
  if (!line) throw new Error(`no task-clock in perf output: ${r.stderr}`)
  return Number(line.split(',')[0])
}

// The generated inputs (one-triangle.glb is the start-up row: process start, reading and
// writing, nearly no work), then the corpus GLBs run.ts reads from ../shared/corpus.
const corpus = resolve(root, '../shared/corpus/glb')
const corpusModels = ['CesiumMan.glb', 'ShapeCollection.glb', 'SheenCloth.glb', 'BoxTextured.glb']
// OBJs without a material library: the service takes one file, so gltfpack sees the same one.
const corpusObjs = ['stanford-bunny.obj', 'teapot.obj']
// Larger OBJs of other structure, written once by kiln-mesh's OBJ writer (simplify at every face,
// which gives the faces back as they are) from generated inputs: one with UVs and normals on every
// corner (textured), a 720,000-face grid (held-out-terrain) and a million-face sphere.
const objDir = join(inputs, 'obj')
const generatedObjs = ['textured', 'held-out-terrain', 'sphere-1m'].flatMap((name) => {
  const obj = join(objDir, `${name}.obj`)
  const glb = join(inputs, `${name}.glb`)
  if (!existsSync(obj) && existsSync(glb)) {
    const dir = join(objDir, name)
    const options = coreOptions('simplify', { target_ratio: 1, max_error: 0, format: 'obj' })
    const r = spawnSync(kiln, ['simplify', glb, dir, JSON.stringify(options)], { stdio: 'ignore' })
    if (r.status !== 0) throw new Error(`kiln-mesh could not write ${obj}`)
    renameSync(join(dir, `${name}_simplified.obj`), obj)
  }
  return existsSync(obj) ? [obj] : []
})
const models = [
  ...readdirSync(inputs)
    .filter((f) => f.endsWith('.glb') && !f.includes('-out'))
    .map((f) => join(inputs, f)),
  ...corpusModels.map((f) => join(corpus, f)).filter(existsSync),
  ...corpusObjs.map((f) => join(corpus, '../obj', f)).filter(existsSync),
  ...generatedObjs,
].filter((f) => !only || only.some((word) => basename(f).includes(word)))
if (models.length === 0) throw new Error(`no inputs in ${inputs}: run bench/mesh/run.ts first`)

interface Task {
  name: string
  kilnArgs: (input: string, out: string) => string[]
  gltfpackArgs: (input: string, out: string) => string[]
}
const tasks: Task[] = [
  {
    name: 'optimize',
    kilnArgs: (input, out) => ['optimize', input, out, JSON.stringify(coreOptions('optimize', {}))],
    gltfpackArgs: (input, out) => ['-i', input, '-o', join(out, 'out.glb'), '-cc'],
  },
  {
    name: 'simplify 0.1',
    kilnArgs: (input, out) => [
      'simplify',
      input,
      out,
      JSON.stringify(coreOptions('simplify', { target_ratio: 0.1, max_error: 0.01, format: 'glb' })),
    ],
    gltfpackArgs: (input, out) => [
      '-i',
      input,
      '-o',
      join(out, 'out.glb'),
      '-si',
      '0.1',
      '-se',
      '0.01',
      '-noq',
    ],
  },
]

const glbIn = (dir: string) => {
  const file = readdirSync(dir).find((f) => f.endsWith('.glb'))
  if (!file) throw new Error(`no GLB in ${dir}`)
  return readFileSync(join(dir, file))
}

console.log(
  `| model | task | kiln ${wall ? 'wall' : 'CPU'} ms | ${base ? 'kiln base ms | ' : ''}gltfpack ms | kiln/gltfpack |${base ? ' same bytes as base |' : ''}`,
)
console.log(`|---|---|---:|${base ? '---:|' : ''}---:|---:|${base ? '---|' : ''}`)
for (const input of models) {
  const model = basename(input)
  for (const task of tasks.filter((t) => !optimizeOnly || t.name === 'optimize')) {
    // simplify of the 2M sphere is over the tool's face limit; bench/mesh/run.ts leaves it out too.
    if (task.name !== 'optimize' && (model.startsWith('sphere-2m') || model === 'one-triangle.glb')) continue
    const dir = (tool: string) => {
      const d = join(work, model, task.name.replace(/ /g, '-'), tool)
      mkdirSync(d, { recursive: true })
      return d
    }
    const best = { kiln: Infinity, base: Infinity, gltfpack: Infinity }
    for (let round = 0; round < rounds; round++) {
      best.kiln = Math.min(best.kiln, cpuMs(kiln, task.kilnArgs(input, dir('kiln'))))
      if (base) best.base = Math.min(best.base, cpuMs(base, task.kilnArgs(input, dir('base'))))
      best.gltfpack = Math.min(best.gltfpack, cpuMs(gltfpack, task.gltfpackArgs(input, dir('gltfpack'))))
    }
    const same = base && existsSync(dir('base')) ? glbIn(dir('kiln')).equals(glbIn(dir('base'))) : null
    const cells = [
      model,
      task.name,
      best.kiln.toFixed(1),
      ...(base ? [best.base.toFixed(1)] : []),
      best.gltfpack.toFixed(1),
      (best.kiln / best.gltfpack).toFixed(2),
      ...(base ? [same ? 'yes' : 'NO'] : []),
    ]
    console.log(`| ${cells.join(' | ')} |`)
  }
}
