// The REST facade under load: GET /v1/jobs/{id}, GET /v1/me and job creation
// (POST /v1/tools/get_random_bytes/jobs) on the real server, against a bare Fastify route answering
// the same JSON, in the same run (its creation commits two events durably first: bare-server.ts).
//   node bench/api/run.ts [--duration 5] [--connections 10] [--creations 1000] [--warm-creations 300]
//                         [--rounds 3] [--only read,me,create]
// KILN_BENCH_PROFILE=dir writes CPU profiles of the server; KILN_BENCH_IMPORT=module preloads a
// module into it (`node --import`), e.g. one that times its postMessage calls.
// The server runs as `npm start` does, in its own process, with the rate, active-job and queue
// limits lifted and no workers: creation measures the API path (auth, validation, the account and
// job deciders, the event append, projection and read-back), not the tool. Nothing is asserted on
// the figures; a run with any non-2xx answer is refused, since its numbers would measure errors.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import { getTool } from '../../domain/tools/catalog.ts'
import { createBenchAccounts } from './accounts.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    creations: { type: 'string', default: '1000' },
    // Creations made before the measured ones, as the reads' first pass: the first few hundred run
    // while the JIT is still compiling the creation path, at a third of the steady rate.
    'warm-creations': { type: 'string', default: '300' },
    // Kiln and bare alternate this many times per operation; the ratio reported is the median's.
    rounds: { type: 'string', default: '3' },
    // A subset of the operations, e.g. to profile one of them alone (KILN_BENCH_PROFILE).
    only: { type: 'string', default: 'read,me,create' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const creations = Number(values.creations)
const warmCreations = Number(values['warm-creations'])
const rounds = Number(values.rounds)
const only = new Set(values.only.split(','))
const tool = 'get_random_bytes'
const unlimited = '1000000000'

const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-api-'))
const children: ChildProcess[] = []

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

/** A server under test: its base URL and process id (whose CPU time the bench reads). */
interface Server {
  base: string
  pid: number
}

/** CPU seconds (user + system) of a /proc stat line: fields 14 and 15, in clock ticks (100 a second). */
function statSeconds(stat: string): number {
  const fields = stat.split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Node names its threads: the event loop, worker_threads (kiln's writers), V8's helpers (GC, JIT). */
const threadKind = (comm: string) =>
  comm === 'MainThread'
    ? 'event loop'
    : comm === 'WorkerThread'
      ? 'worker threads'
      : comm.startsWith('V8')
        ? 'V8 helpers'
        : 'other'

/** CPU seconds the process has used so far, whole and per kind of thread, from /proc (Linux). */
function cpuSeconds(pid: number): { total: number; threads: Map<string, number> } {
  const threads = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const kind = threadKind(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())
      const seconds = statSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))
      threads.set(kind, (threads.get(kind) ?? 0) + seconds)
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { total: statSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8')), threads }
}

/** A run's result and the server's CPU time per answered request, whole and per kind of thread. */
interface Measured {
  result: Result
  cpuUsPerRequest: number
  threadsUsPerRequest: [kind: string, us: number][]
  /** This process's CPU per request: autocannon's, the load generator sharing the machine. */
  clientUsPerRequest: number
}

async function measure(server: Server, run: () => Promise<Result>): Promise<Measured> {
  const before = cpuSeconds(server.pid)
  const clientBefore = process.cpuUsage()
  const result = await run()
  const client = process.cpuUsage(clientBefore)
  const after = cpuSeconds(server.pid)
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests.total
  return {
    result,
    clientUsPerRequest: (client.user + client.system) / result.requests.total,
    cpuUsPerRequest: perRequest(after.total - before.total),
    threadsUsPerRequest: [...after.threads].map(([kind, seconds]) => [
      kind,
      perRequest(seconds - (before.threads.get(kind) ?? 0)),
    ]),
  }
}

async function startKiln(port: number): Promise<Server> {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    RUN_WORKERS: 'false',
    RATE_LIMIT_PER_SECOND: unlimited,
    RATE_LIMIT_BURST: unlimited,
    ADDRESS_RATE_LIMIT_PER_SECOND: unlimited,
    ADDRESS_RATE_LIMIT_BURST: unlimited,
    MAX_ACTIVE_JOBS: unlimited,
    MAX_QUEUED_JOBS: unlimited,
  }
  const profile = process.env.KILN_BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.KILN_BENCH_PROFILE}`]
    : []
  const child = spawn(
    process.execPath,
    [
      ...profile,
      ...(process.env.KILN_BENCH_IMPORT ? ['--import', process.env.KILN_BENCH_IMPORT] : []),
      'api/main.ts',
    ],
    {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  children.push(child)
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 100; attempt++) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, pid: child.pid! }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error('the kiln server did not start')
}

async function startBare(jobFile: string, meFile: string): Promise<Server> {
  const child = spawn(process.execPath, ['bench/api/bare-server.ts', jobFile, meFile, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  return { base: `http://127.0.0.1:${line.trim()}`, pid: child.pid! }
}

function refuseErrors(what: string, result: Result): Result {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${what}: ${result.non2xx} non-2xx answers and ${result.errors} errors (${JSON.stringify(result.statusCodeStats)})`,
    )
  }
  return result
}

const read = async (url: string, key: string) =>
  refuseErrors(
    `GET ${url}`,
    await autocannon({ url, headers: { authorization: `Bearer ${key}` }, connections, duration }),
  )

// Each account may start a limited number of free jobs a day, so creations on kiln are counted
// and rotate over the keys; the bare route has no quota and runs for the read duration.
// The rotation carries on from one run to the next on the same server, so that over all rounds no
// key starts more than its share.
const nextKey = new Map<string, number>()
function createJobs(base: string, keys: string[], length: { amount: number } | { duration: number }) {
  let next = nextKey.get(base) ?? 0
  return autocannon({
    url: `${base}/v1/tools/${tool}/jobs`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    connections,
    ...length,
    // autocannon ends a run at its next sample tick (1 s by default): a counted run that took 1.1 s
    // was reported as 2 s, and creation rates were quantized to creations ÷ whole seconds.
    sampleInt: 10,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, authorization: `Bearer ${keys[next++ % keys.length]}` },
        }),
      },
    ],
  }).then((result) => {
    nextKey.set(base, next)
    return refuseErrors(`POST ${base}`, result)
  })
}

// Over the whole run rather than per-second samples, which a short run has few of.
const perSecond = (r: Result) => r.requests.total / r.duration

const row = (operation: string, kiln: Measured, bare: Measured) => {
  const ms = (value: number) => `${value} ms`
  const rate = (r: Result) => Math.round(perSecond(r)).toLocaleString('en')
  const cpu = (m: Measured) => `${Math.round(m.cpuUsPerRequest)} µs`
  const [k, b] = [kiln.result, bare.result]
  return `| ${operation} | ${rate(k)} | ${ms(k.latency.p50)} | ${ms(k.latency.p99)} | ${cpu(kiln)} | ${rate(b)} | ${ms(b.latency.p50)} | ${ms(b.latency.p99)} | ${cpu(bare)} | ${(perSecond(k) / perSecond(b)).toFixed(2)} |`
}

try {
  const perAccount = getTool(tool).limits.jobsPerDayBeforePurchase
  // Room for the creation run on both servers' key rotation, plus the job the reads fetch.
  const keys = await createBenchAccounts(
    dir,
    Math.ceil((warmCreations + creations * rounds + 1) / (perAccount - 1)),
  )
  const kilnServer = await startKiln(await freePort())
  const kiln = kilnServer.base
  const created = await fetch(`${kiln}/v1/tools/${tool}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
    body: '{}',
  })
  if (created.status !== 202)
    throw new Error(`creating the job to read answered ${created.status}: ${await created.text()}`)
  const job = (await created.json()) as { id: string }
  const jobFile = join(dir, 'job.json')
  writeFileSync(jobFile, JSON.stringify(job))
  const meAnswer = await fetch(`${kiln}/v1/me`, { headers: { authorization: `Bearer ${keys[0]}` } })
  const meFile = join(dir, 'me.json')
  writeFileSync(meFile, JSON.stringify(await meAnswer.json()))
  const bareServer = await startBare(jobFile, meFile)
  const bare = bareServer.base

  // A short first pass on each warms the JIT; its figures are dropped.
  for (const base of [kiln, bare])
    for (const path of [`/v1/jobs/${job.id}`, '/v1/me'])
      await autocannon({
        url: `${base}${path}`,
        headers: { authorization: `Bearer ${keys[0]}` },
        connections,
        duration: 1,
      })
  if (only.has('create') && warmCreations > 0) {
    await createJobs(kiln, keys, { amount: warmCreations })
    await createJobs(bare, keys, { duration: 1 })
  }
  const rows: string[] = []
  const medians: string[] = []
  const threadRows: string[] = []
  // Kiln and bare back to back for each operation, so both see the same load from other processes,
  // and alternated `rounds` times: on a shared machine one pair can differ from the next by 2×.
  const compare = async (operation: string, onKiln: () => Promise<Result>, onBare: () => Promise<Result>) => {
    const ratios: number[] = []
    for (let round = 1; round <= rounds; round++) {
      const [k, b] = [await measure(kilnServer, onKiln), await measure(bareServer, onBare)]
      const label = rounds > 1 ? `${operation} (${round})` : operation
      rows.push(row(label, k, b))
      const byThread = k.threadsUsPerRequest.map(([kind, us]) => `${kind} ${Math.round(us)} µs`)
      threadRows.push(`${label}: ${byThread.join(', ')}; client ${Math.round(k.clientUsPerRequest)} µs`)
      ratios.push(perSecond(k.result) / perSecond(b.result))
    }
    ratios.sort((x, y) => x - y)
    medians.push(
      `${operation}: median ratio ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    )
  }
  if (only.has('read'))
    await compare(
      'GET /v1/jobs/{id}',
      () => read(`${kiln}/v1/jobs/${job.id}`, keys[0]!),
      () => read(`${bare}/v1/jobs/${job.id}`, keys[0]!),
    )
  if (only.has('me'))
    await compare(
      'GET /v1/me',
      () => read(`${kiln}/v1/me`, keys[0]!),
      () => read(`${bare}/v1/me`, keys[0]!),
    )
  if (only.has('create'))
    await compare(
      `POST /v1/tools/${tool}/jobs`,
      () => createJobs(kiln, keys, { amount: creations }),
      () => createJobs(bare, keys, { duration }),
    )

  console.log(
    `\n${connections} connections; reads for ${duration} s; ${creations} creations over ${keys.length} accounts. Latencies in whole ms (autocannon's resolution). CPU: the server's CPU time per request. Ratio: kiln req/s ÷ bare req/s.\n`,
  )
  console.log(
    '| Operation | kiln req/s | kiln p50 | kiln p99 | kiln CPU | bare Fastify req/s | bare p50 | bare p99 | bare CPU | ratio |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const line of rows) console.log(line)
  console.log('')
  for (const line of medians) console.log(line)
  console.log(
    "\nKiln's CPU per request by thread (whole-tick resolution of /proc), and the client's (autocannon, this process):",
  )
  for (const line of threadRows) console.log(line)
} finally {
  for (const child of children) child.kill('SIGTERM')
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : null)))
  rmSync(dir, { recursive: true, force: true })
}
