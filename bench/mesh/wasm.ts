// The mesh core's two builds in one process: the native addon against the wasm32-wasip1-threads
// fallback (node native/build-wasm.ts mesh-node), on the same inputs, after one warm-up call each.
// Prints the median of N runs per tool and the wasm/native ratio. Not a test.
//   node bench/mesh/wasm.ts [runs]
import { readFileSync } from 'node:fs'
import { basename, extname, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { coreOptions, loadMeshBuild, type MeshAddon, type MeshTool } from '../../native/mesh.ts'

const corpus = resolve(import.meta.dirname, '../../../shared/corpus')
const runs = Number(process.argv[2] ?? 5)
const native = loadMeshBuild('native')
const wasm = loadMeshBuild('wasm')
if (!native || !wasm) {
  console.error(
    'Both builds are needed: node native/build.ts mesh-node && node native/build-wasm.ts mesh-node',
  )
  process.exit(1)
}

const models = ['glb/CesiumMan.glb', 'glb/SheenCloth.glb', 'obj/stanford-bunny.obj']
const tasks: Array<[MeshTool, object]> = [
  ['inspect', {}],
  ['simplify', { target_ratio: 0.25, format: 'glb' }],
  ['optimize', {}],
]

async function median(addon: MeshAddon, tool: MeshTool, data: Buffer, name: string, options: object) {
  const call = () =>
    addon.runTool(tool, data, name, extname(name).slice(1), JSON.stringify(coreOptions(tool, options)))
  await call()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const outcome = await call()
    times.push(performance.now() - started)
    if (outcome.error) throw new Error(`${tool} ${name}: ${outcome.error.message}`)
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0
}

console.log('| model | tool | native ms | wasm ms | wasm/native |\n|---|---|---:|---:|---:|')
for (const model of models) {
  const data = readFileSync(join(corpus, model))
  const name = basename(model)
  for (const [tool, options] of tasks) {
    if (tool === 'inspect' && model.includes('bunny')) continue
    const n = await median(native, tool, data, name, options)
    const w = await median(wasm, tool, data, name, options)
    console.log(`| ${name} | ${tool} | ${n.toFixed(1)} | ${w.toFixed(1)} | ${(w / n).toFixed(2)} |`)
  }
}
