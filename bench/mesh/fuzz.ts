// Longer fuzzing than CI's: the seeded mutation loops of mesh-core's tests/fuzz.rs with a bigger
// budget per seed file, for the readers and (a tenth of it) for every tool on readable mutants and
// on glTF documents mutated as glTF. MESH_FUZZ_SEED picks another stream of mutations than CI's.
//   node bench/mesh/fuzz.ts [iterations-per-seed, default 50000]
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

const iterations = process.argv[2] ?? '50000'
const result = spawnSync(
  'cargo',
  ['test', '-j', '2', '--release', '-p', 'mesh-core', '--test', 'fuzz', '--', '--nocapture'],
  {
    cwd: resolve(import.meta.dirname, '../../native'),
    env: {
      ...process.env,
      MESH_FUZZ_ITERATIONS: iterations,
      MESH_TOOL_FUZZ_ITERATIONS: String(Math.ceil(Number(iterations) / 10)),
      MESH_GLTF_FUZZ_ITERATIONS: String(Math.ceil(Number(iterations) / 10)),
    },
    stdio: 'inherit',
  },
)
process.exit(result.status ?? 1)
