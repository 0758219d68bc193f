// Starts the mesh bench's processes and times them, from a small Node process of its own.
// The bench itself holds hundreds of MB (models, validator reports), and forking it to start a tool
// took about 13 ms on the bench's host, the same for every tool: more than the tools' own work on
// the small rows, whose ratios it pulled towards 1 (session 48). Forked from this process, a start
// costs about 1 ms.
//   node bench/mesh/launcher.ts <command> [args...]
// Prints {"ms", "status", "stdout", "stderr"} as one line of JSON: the wall time of the command's
// process, its exit status and its output.
//   node bench/mesh/launcher.ts --race '<json>'
// with {"commands": [[command, ...args], ...], "runs": n, "spend": ms, "most": n}: the commands run
// in turn (the first, the second, …, the first again), each at least `runs` times and on until each
// has taken `spend` ms in all or run `most` times. Prints {"ms": [best of each], "runs", "status",
// "stderr"}; a command that fails stops the race. Taken in turn, a slow spell of the shared machine
// falls on both tools alike; timed one after the other (all of one tool's runs, then the other's),
// a few-millisecond row's ratio moved by a tenth between two runs of the bench (session 51).
import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'

type Timed = { ms: number; status: number | null; stdout: string; stderr: string }

function timed(command: string, args: string[]): Timed {
  const started = performance.now()
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = performance.now() - started
  return { ms, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? r.error?.message ?? '' }
}

type Race = { commands: string[][]; runs: number; spend: number; most: number }

function race({ commands, runs, spend, most }: Race) {
  const best = commands.map(() => Number.POSITIVE_INFINITY)
  const spent = commands.map(() => 0)
  let run = 0
  while (run < runs || (run < most && spent.some((ms) => ms < spend))) {
    for (const [i, [command, ...args]] of commands.entries()) {
      if (!command) throw new Error('an empty command')
      const r = timed(command, args)
      if (r.status !== 0) return { ms: best, runs: run, status: r.status, stderr: r.stderr || r.stdout }
      best[i] = Math.min(best[i] ?? r.ms, r.ms)
      spent[i] = (spent[i] ?? 0) + r.ms
    }
    run++
  }
  return { ms: best, runs: run, status: 0, stderr: '' }
}

const [first, ...rest] = process.argv.slice(2)
if (!first) {
  console.error("usage: node bench/mesh/launcher.ts <command> [args...] | --race '<json>'")
  process.exit(64)
}
const result = first === '--race' ? race(JSON.parse(rest[0] ?? '') as Race) : timed(first, rest)
process.stdout.write(`${JSON.stringify(result)}\n`)
