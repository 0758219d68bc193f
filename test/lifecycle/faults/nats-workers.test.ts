// Scale-out as operators run it: the API process (projections, housekeeper, no workers) and two
// `npm run worker` processes sharing one data folder and a real nats-server. The NATS server is
// restarted in the middle of the run; every job still ends succeeded with exactly one charge, both
// workers take part, and the auditor passes.
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jobStream } from '../../../domain/job/events.ts'
import { audit } from '../../../projections/audit.ts'
import { natsUnavailableReason, startNatsServer } from '../../dispatch/nats-server.ts'
import { peerReady } from '../../support/peers.ts'
import { startTestService, waitForJob } from '../../support/service.ts'
import { jobBooks } from '../support/ledger.ts'
import { baseSeed, seededRandom } from '../support/seeded.ts'

const workerScript = join(import.meta.dirname, '..', '..', '..', 'workers', 'main.ts')
const ready = peerReady('nats-workers', natsUnavailableReason())

function startWorker(natsUrl: string, dataDir: string): ChildProcess {
  return spawn(process.execPath, [workerScript], {
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      DATA_DIR: dataDir,
      WORKER_CONCURRENCY: '1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

describe.runIf(ready)('two worker processes over NATS', () => {
  it('share the load and lose no job when the NATS server restarts mid-run', {
    timeout: 180_000,
  }, async () => {
    const seed = baseSeed
    console.log(`[nats-workers] seed ${seed} (replay with FAULT_SEED=${seed})`)
    const random = seededRandom(seed)
    const nats = await startNatsServer()
    const service = await startTestService(
      { natsUrl: nats.url, maxActiveJobsPerAccount: 100, rateLimit: { perSecond: 1000, burst: 1000 } },
      { consumeJobs: false },
    )
    const workers = [
      startWorker(nats.url, service.services.ctx.config.dataDir),
      startWorker(nats.url, service.services.ctx.config.dataDir),
    ]
    try {
      const ivy = await service.account({ credits: 100, login: 'ivy' })
      const total = 16
      const restartAfter = 4 + Math.floor(random() * 8)
      const ids: string[] = []
      for (let i = 0; i < total; i++) {
        if (i === restartAfter) await nats.restart!()
        const response = await ivy.request('/v1/tools/get_random_numbers/jobs', {
          method: 'POST',
          json: { options: { count: 3 }, idempotency_key: `scale-${i}` },
        })
        if (response.status !== 202) throw new Error(`job ${i}: ${response.status} ${await response.text()}`)
        ids.push(((await response.json()) as { id: string }).id)
      }
      const jobs = await Promise.all(ids.map((id) => waitForJob(ivy, id, 120_000)))
      expect(jobs.map((job) => job.status)).toEqual(ids.map(() => 'succeeded'))

      const store = service.services.ctx.store
      const workerNames = new Set<string>()
      for (const id of ids) {
        const books = await jobBooks(store, ivy.accountId, id)
        expect(books).toMatchObject({ charges: 1, charged: 1, refunds: 0, finals: ['JobSucceeded'] })
        for (const event of await store.readStream(jobStream(id))) {
          if (event.type === 'JobStarted') workerNames.add((event.data as { worker: string }).worker)
        }
      }
      expect(workerNames.size).toBe(2)
      const report = await audit(store)
      expect(report.violations).toEqual([])
    } finally {
      for (const worker of workers) worker.kill('SIGTERM')
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise((resolve) =>
              worker.exitCode === null ? worker.once('exit', resolve) : resolve(null),
            ),
        ),
      )
      await service.close()
      await nats.stop()
    }
  })
})
