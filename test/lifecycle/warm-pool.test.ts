// The warm pool of job children: a child that dies while idle is replaced and never handed a job (one
// that dies in the very instant of the hand-over leaves the job to another child); a job in a warm
// child still meets its time and memory limits, counted from the hand-over, not from the warm-up;
// close() ends every child, idle or used, and so does the service's close().
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { type IsolatedJob, runIsolated } from '../../workers/runtime/isolated-run.ts'
import { WarmChildPool } from '../../workers/runtime/warm-pool.ts'
import { startTestService, type TestService, waitForJob } from '../support/service.ts'
import { behaviours } from './fixtures/misbehaving-runner.ts'
import { pollUntil, startJob } from './support/jobs.ts'

const misbehavingRunner = fileURLToPath(new URL('./fixtures/misbehaving-runner.ts', import.meta.url))
const memoryMb = 256

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** This process's job children (warm or busy), found through /proc, not through the pool. */
async function jobChildren(): Promise<number[]> {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return (
          parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('runtime/child.ts')
        )
      } catch {
        return false
      }
    })
    .map(Number)
}

function job(overrides: Partial<IsolatedJob> = {}): IsolatedJob {
  return {
    tool: 'get_random_numbers',
    input: null,
    options: { count: 3, type: 'integer', min: 1, max: 6, unique: false },
    outDir: '/nonexistent',
    timeoutMs: 10_000,
    memoryMb,
    afterMeasure: async () => null,
    onProgress: () => {},
    ...overrides,
  }
}

/** The pool, with a record of every child it handed out. */
function recordedPool(size: number) {
  const pool = new WarmChildPool(size, memoryMb)
  const taken: number[] = []
  const source = {
    take(limit: number) {
      const child = pool.take(limit)
      if (child.pid) taken.push(child.pid)
      return child
    },
  }
  const readyPids = async () =>
    pool
      .idleChildren()
      .filter((c) => c.ready)
      .map((c) => c.pid)
  return { pool, source, taken, readyPids }
}

describe('warm pool of job children', () => {
  let pool: WarmChildPool | null = null
  afterEach(async () => {
    delete process.env.KILN_TEST_RUNNER_MODULE
    await pool?.close()
    pool = null
  })

  it('replaces a child that died while idle, never hands it a job, and still runs jobs', async () => {
    const recorded = recordedPool(2)
    pool = recorded.pool
    const [victim] = await pollUntil(recorded.readyPids, (pids) => pids.length === 2)
    process.kill(victim!, 'SIGKILL')
    const replaced = await pollUntil(
      recorded.readyPids,
      (pids) => pids.length === 2 && !pids.includes(victim!),
    )
    expect(replaced).not.toContain(victim)

    for (let i = 0; i < 4; i++) {
      const outcome = await runIsolated(job({ children: recorded.source }))
      expect(outcome).toMatchObject({ ok: true, units: 1, summary: { count: 3 } })
    }
    expect(recorded.taken).toHaveLength(4)
    expect(recorded.taken).not.toContain(victim)
    expect(new Set(recorded.taken).size).toBe(4)
  })

  it('runs the job in another child when its warm child died just before the hand-over', async () => {
    const recorded = recordedPool(1)
    pool = recorded.pool
    const [victim] = await pollUntil(recorded.readyPids, (pids) => pids.length === 1)
    // Killed in the same tick as the take: the pool cannot have heard of the death yet.
    process.kill(victim!, 'SIGKILL')
    const outcome = await runIsolated(job({ children: recorded.source }))
    expect(recorded.taken).toHaveLength(2)
    expect(recorded.taken[0]).toBe(victim)
    expect(outcome).toMatchObject({ ok: true, units: 1, summary: { count: 3 } })
  })

  it('runs a job of another memory limit in a cold child, then keeps one of that limit warm', async () => {
    const recorded = recordedPool(2)
    pool = recorded.pool
    const warm = await pollUntil(recorded.readyPids, (pids) => pids.length === 2)
    const outcome = await runIsolated(job({ memoryMb: 512, children: recorded.source }))
    expect(outcome).toMatchObject({ ok: true })
    expect(warm).not.toContain(recorded.taken[0])
    const limits = pool.idleChildren().map((c) => c.memoryMb)
    expect(limits.sort((a, b) => a - b)).toEqual([memoryMb, 512])
    const idle512 = pool.idleChildren().find((c) => c.memoryMb === 512)!.pid
    await runIsolated(job({ memoryMb: 512, children: recorded.source }))
    expect(recorded.taken[1]).toBe(idle512)
  })

  it('counts the time limit from the hand-over, not from the warm-up', async () => {
    const recorded = recordedPool(1)
    pool = recorded.pool
    await pollUntil(recorded.readyPids, (pids) => pids.length === 1)
    const timeoutMs = 1500
    // Idle for longer than the job's time limit: a quick job must still succeed.
    await new Promise((resolve) => setTimeout(resolve, timeoutMs + 500))
    const quick = await runIsolated(job({ timeoutMs, children: recorded.source }))
    expect(quick).toMatchObject({ ok: true })
    expect(quick.computeMs).toBeLessThan(timeoutMs)

    process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
    await pollUntil(recorded.readyPids, (pids) => pids.length === 1)
    const hung = await runIsolated(
      job({ timeoutMs, options: { count: behaviours.hang }, children: recorded.source }),
    )
    expect(hung).toMatchObject({ ok: false, units: 1, error: { code: 'timeout' } })
    expect(hung.computeMs).toBeGreaterThanOrEqual(timeoutMs)
    expect(hung.computeMs).toBeLessThan(timeoutMs + 1000)
  })

  it('fails a job that overruns its memory in a warm child with out_of_memory', async () => {
    const recorded = recordedPool(1)
    pool = recorded.pool
    await pollUntil(recorded.readyPids, (pids) => pids.length === 1)
    process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
    const outcome = await runIsolated(
      job({ options: { count: behaviours.exhaustMemory }, children: recorded.source }),
    )
    expect(outcome).toMatchObject({ ok: false, units: 1, error: { code: 'out_of_memory' } })
    expect(recorded.taken).toHaveLength(1)
    await pollUntil(
      async () => isRunning(recorded.taken[0]!),
      (running) => !running,
      5000,
    )
  })

  it('close() ends every child it started: idle, used, or still running a job', async () => {
    const recorded = recordedPool(3)
    pool = recorded.pool
    await pollUntil(recorded.readyPids, (pids) => pids.length === 3)
    await runIsolated(job({ children: recorded.source }))
    process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
    let measured = false
    const hung = runIsolated(
      job({
        options: { count: behaviours.hang },
        children: recorded.source,
        afterMeasure: async () => {
          measured = true
          return null
        },
      }),
    )
    await pollUntil(async () => measured, Boolean)
    const seen = [...recorded.taken, ...recorded.pool.idleChildren().map((c) => c.pid)]
    expect(seen.length).toBeGreaterThanOrEqual(5)
    await recorded.pool.close()
    expect(seen.filter(isRunning)).toEqual([])
    expect(recorded.pool.idleChildren()).toEqual([])
    expect(await hung).toMatchObject({ ok: false, error: { code: 'internal' } })
  })
})

describe('the service and its warm children', () => {
  let service: TestService | null = null
  afterEach(async () => {
    await service?.close()
    service = null
  })

  it('runs jobs in warm children and leaves no child process after close()', async () => {
    service = await startTestService({ warmChildren: 2, rateLimit: { perSecond: 1000, burst: 1000 } })
    const seen = new Set(await pollUntil(jobChildren, (pids) => pids.length === 2))
    const account = await service.account({ credits: 10, login: 'warm' })
    for (let i = 0; i < 3; i++) {
      const job = await startJob(account, 'get_random_numbers', { count: 2 }, `warm-${i}`)
      expect((await waitForJob(account, job.id)).status).toBe('succeeded')
      for (const pid of await jobChildren()) seen.add(pid)
    }
    expect(seen.size).toBeGreaterThanOrEqual(3)
    await service.close()
    service = null
    expect([...seen].filter(isRunning)).toEqual([])
    expect(await jobChildren()).toEqual([])
  })
})
