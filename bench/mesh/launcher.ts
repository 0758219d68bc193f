// Starts one process for the mesh bench and times it, from a small Node process of its own.
// The bench itself holds hundreds of MB (models, validator reports), and forking it to start a tool
// took about 13 ms on the bench's host, the same for every tool: more than the tools' own work on
// the small rows, whose ratios it pulled towards 1 (session 48). Forked from this process, a start
// costs about 1 ms.
//   node bench/mesh/launcher.ts <command> [args...]
// Prints {"ms", "status", "stdout", "stderr"} as one line of JSON: the wall time of the command's
// process, its exit status and its output.
import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error('usage: node bench/mesh/launcher.ts <command> [args...]')
  process.exit(64)
}
const started = performance.now()
const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
const ms = performance.now() - started
process.stdout.write(
  `${JSON.stringify({ ms, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? r.error?.message ?? '' })}\n`,
)
