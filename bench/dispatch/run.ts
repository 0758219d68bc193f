// Dispatch benchmark: a tiny job's end-to-end latency (create → succeeded, p50/p99) and jobs/s, over the
// in-process queue and over NATS JetStream (a real nats-server), and NATS with 1 vs 2 worker processes;
// in-process also with cold children (WORKER_WARM_CHILDREN=0, a fresh fork per job) as the warm pool's peer.
// Not a test: it prints figures and the ratios between peers measured in the same run.
//   node_modules/.bin/node bench/dispatch/run.ts   (BENCH_JOBS=n, default 40; WORKER_WARM_CHILDREN=n)
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { grantCredits, openAccount } from '../../app/accounts.ts'
import { loadConfig } from '../../app/config.ts'
import { jobDecider } from '../../app/deciders.ts'
import { readState } from '../../app/handle-command.ts'
import { createJob } from '../../app/jobs/create-job.ts'
import { type Services, startServices } from '../../app/services.ts'
import { jobStream } from '../../domain/job/events.ts'
import { startNatsServer } from '../../test/dispatch/nats-server.ts'

const jobs = Number(process.env.BENCH_JOBS ?? 40)
const settleMs = 1500
const workerScript = fileURLToPath(new URL('../../workers/main.ts', import.meta.url))

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function untilSucceeded(services: Services, jobId: string): Promise<void> {
  for (;;) {
    const { state } = await readState(services.ctx.store, jobStream(jobId), jobDecider)
    if (state.status === 'succeeded') return
    if (state.status !== 'queued' && state.status !== 'running')
      throw new Error(`${jobId} ended ${state.status}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

interface Figures {
  p50: number
  p99: number
  jobsPerSecond: number
}

/** `jobs` tiny jobs one after another (latency), then all at once (throughput). */
async function measure(
  services: Services,
  tool: string,
  options: Record<string, unknown>,
  sequential: boolean,
): Promise<Figures> {
  const { accountId } = await openAccount(services.ctx, { login: 'bench', email: null, credits: 0 })
  await grantCredits(services.ctx, accountId, { credits: 100_000, kind: 'pack' })
  const start = (i: number) =>
    createJob(services.ctx, {
      accountId,
      tool,
      options,
      input: { kind: 'none' },
      idempotencyKey: `${tool}-${sequential}-${i}`,
    })
  const latencies: number[] = []
  if (sequential) {
    for (let i = 0; i < jobs; i++) {
      const t0 = performance.now()
      await untilSucceeded(services, (await start(i)).jobId)
      latencies.push(performance.now() - t0)
    }
  }
  const t0 = performance.now()
  const created = await Promise.all(Array.from({ length: jobs }, (_, i) => start(i + jobs)))
  await Promise.all(created.map((c) => untilSucceeded(services, c.jobId)))
  const seconds = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  return {
    p50: latencies.length ? percentile(latencies, 50) : Number.NaN,
    p99: latencies.length ? percentile(latencies, 99) : Number.NaN,
    jobsPerSecond: jobs / seconds,
  }
}

function environment(
  dataDir: string,
  natsUrl: string | null,
  concurrency: number,
  warmChildren: number | null,
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    NATS_URL: natsUrl ?? '',
    SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef',
    MAX_ACTIVE_JOBS: '100000',
    WORKER_CONCURRENCY: String(concurrency),
    ...(warmChildren === null ? {} : { WORKER_WARM_CHILDREN: String(warmChildren) }),
  }
}

async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerScript], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  await once(createInterface({ input: child.stdout! }), 'line')
  return child
}

async function scenario<T>(
  natsUrl: string | null,
  concurrency: number,
  workers: number,
  body: (services: Services) => Promise<T>,
  warmChildren: number | null = null,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-'))
  const env = environment(dataDir, natsUrl, concurrency, warmChildren)
  const embedded = natsUrl === null
  const services = await startServices(loadConfig(env), { consumeJobs: embedded })
  const children = embedded ? [] : await Promise.all(Array.from({ length: workers }, () => startWorker(env)))
  // Steady state, not start-up: the warm pools boot their children before the first job is timed.
  await sleep(settleMs)
  try {
    return await body(services)
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await Promise.all(children.map((child) => once(child, 'exit')))
    await services.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const show = (name: string, f: Figures) => {
  const latency = Number.isNaN(f.p50)
    ? 'throughput only'
    : `p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms`
  console.log(`${name.padEnd(36)} ${latency.padEnd(32)} ${f.jobsPerSecond.toFixed(1)} jobs/s`)
}

const tiny = { count: 1 }
const inProcess = await scenario(null, 2, 0, (s) => measure(s, 'get_random_numbers', tiny, true))
show('in-process, tiny job', inProcess)
const cold = await scenario(null, 2, 0, (s) => measure(s, 'get_random_numbers', tiny, true), 0)
show('in-process, tiny job, cold children', cold)
console.log(
  `warm pool / cold children: latency p50 ×${(inProcess.p50 / cold.p50).toFixed(2)}, throughput ×${(inProcess.jobsPerSecond / cold.jobsPerSecond).toFixed(2)}`,
)

const nats = await startNatsServer()
try {
  // Each NATS scenario gets its own stream contents: the work queue is emptied by the end of each.
  const overNats = await scenario(nats.url, 2, 1, (s) => measure(s, 'get_random_numbers', tiny, true))
  show('NATS, 1 worker process, tiny job', overNats)
  console.log(
    `NATS / in-process: latency p50 ×${(overNats.p50 / inProcess.p50).toFixed(2)}, throughput ×${(overNats.jobsPerSecond / inProcess.jobsPerSecond).toFixed(2)}`,
  )

  // CPU-bound: 1,000 unique integers over the whole safe range (BigInt rejection sampling in the child).
  const heavy = { count: 1000, min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, unique: true }
  const one = await scenario(nats.url, 1, 1, (s) => measure(s, 'get_random_numbers', heavy, false))
  show('NATS, 1 worker × 1 slot, CPU-bound', one)
  const two = await scenario(nats.url, 1, 2, (s) => measure(s, 'get_random_numbers', heavy, false))
  show('NATS, 2 workers × 1 slot, CPU-bound', two)
  console.log(`2 workers / 1 worker: throughput ×${(two.jobsPerSecond / one.jobsPerSecond).toFixed(2)}`)
} finally {
  await nats.stop()
}
