// SIGTERM drains a worker: it stops taking work, lets the job it is running finish and settle, then
// exits 0. The running job succeeds on its first and only run; a job queued while no worker runs
// waits in NATS and is run by the next worker. Nothing is lost, nothing runs twice.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobStream } from '../../../domain/job/events.ts'
import { type NatsServer, natsUnavailableReason, startNatsServer } from '../../dispatch/nats-server.ts'
import { peerReady } from '../../support/peers.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../../support/service.ts'
import { behaviours } from '../fixtures/misbehaving-runner.ts'
import { pollUntil, startJob } from '../support/jobs.ts'

const workerScript = join(import.meta.dirname, '..', '..', '..', 'workers', 'main.ts')
const slowRunner = fileURLToPath(new URL('../fixtures/misbehaving-runner.ts', import.meta.url))
const ready = peerReady('sigterm-drain', natsUnavailableReason())

async function startWorker(natsUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerScript], {
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      DATA_DIR: dataDir,
      WORKER_CONCURRENCY: '1',
      WORKER_WARM_CHILDREN: '0',
      KILN_TEST_RUNNER_MODULE: slowRunner,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await once(child.stdout!, 'data')
  child.stdout!.resume()
  return child
}

describe.runIf(ready)('SIGTERM drain of a worker', () => {
  let nats: NatsServer
  let service: TestService
  let ann: TestAccount

  beforeAll(async () => {
    nats = await startNatsServer()
    service = await startTestService(
      { natsUrl: nats.url, maxActiveJobsPerAccount: 10, rateLimit: { perSecond: 1000, burst: 1000 } },
      { consumeJobs: false },
    )
    ann = await service.account({ credits: 100, login: 'ann' })
  })
  afterAll(async () => {
    await service?.close()
    await nats?.stop()
  })

  const starts = async (jobId: string) =>
    (await service.services.ctx.store.readStream(jobStream(jobId))).filter((e) => e.type === 'JobStarted')
      .length

  it('finishes the running job, exits 0, and leaves queued work for the next worker', async () => {
    const dataDir = service.services.ctx.config.dataDir
    const worker = await startWorker(nats.url, dataDir)
    const running = await startJob(ann, 'get_random_numbers', { count: behaviours.slowSuccess }, 'drain-1')
    await pollUntil(
      async () => ((await (await ann.request(`/v1/jobs/${running.id}`)).json()) as { status: string }).status,
      (status) => status === 'running',
    )
    const exited = once(worker, 'exit')
    worker.kill('SIGTERM')
    // Queued after the drain began: the draining worker must not take it.
    const queued = await startJob(ann, 'get_random_numbers', { count: behaviours.slowSuccess }, 'drain-2')
    const [code] = (await exited) as [number | null]
    expect(code).toBe(0)

    const finished = await waitForJob(ann, running.id)
    expect(finished).toMatchObject({ status: 'succeeded', credits_charged: 1 })
    expect(await starts(running.id)).toBe(1)
    expect(((await (await ann.request(`/v1/jobs/${queued.id}`)).json()) as { status: string }).status).toBe(
      'queued',
    )

    const next = await startWorker(nats.url, dataDir)
    try {
      expect(await waitForJob(ann, queued.id)).toMatchObject({ status: 'succeeded' })
      expect(await starts(queued.id)).toBe(1)
    } finally {
      next.kill('SIGTERM')
      await once(next, 'exit')
    }
  }, 60_000)
})
