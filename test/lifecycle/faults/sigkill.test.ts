// SIGKILL of the service process at random points of its jobs, over many runs with printed seeds
// (FAULT_RUNS for more, FAULT_SEED to replay one). The embedded service runs as its own OS process and
// is killed and started again on the same data folder; afterwards every job is final, charged exactly
// once or not at all, and the ledger auditor passes.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grantCredits, openAccount } from '../../../app/accounts.ts'
import { loadConfig } from '../../../app/config.ts'
import { jobDecider } from '../../../app/deciders.ts'
import { readState } from '../../../app/handle-command.ts'
import { createJob } from '../../../app/jobs/create-job.ts'
import { type Services, startServices } from '../../../app/services.ts'
import { jobStream } from '../../../domain/job/events.ts'
import { isFinished } from '../../../domain/job/state.ts'
import { audit } from '../../../projections/audit.ts'
import { pollUntil } from '../support/jobs.ts'
import { jobBooks } from '../support/ledger.ts'
import { baseSeed, faultRuns, seededRandom } from '../support/seeded.ts'
import { kill, startServiceProcess } from '../support/service-process.ts'

const jobsPerRun = 6
const killsPerRun = 2

describe('SIGKILL of the service at random points of its jobs', () => {
  for (let run = 0; run < faultRuns; run++) {
    const seed = baseSeed + run
    describe(`run ${run} (seed ${seed})`, () => {
      let dataDir: string
      let env: NodeJS.ProcessEnv
      let control: Services
      let child: ChildProcess | undefined

      beforeAll(async () => {
        console.log(`[faults] sigkill run ${run}: seed ${seed} (replay with FAULT_SEED=${seed} FAULT_RUNS=1)`)
        dataDir = mkdtempSync(join(tmpdir(), 'kiln-sigkill-'))
        env = {
          ...process.env,
          DATA_DIR: dataDir,
          SIGNING_SECRET: 'fault-test-signing-secret-0123456789',
          MAX_ACTIVE_JOBS: '100',
          WORKER_CONCURRENCY: '2',
          NATS_URL: '',
        }
        // The test's own handle on the same store: it creates the jobs and checks the books; it runs no jobs.
        control = await startServices(loadConfig(env), { consumeJobs: false, project: false })
      })
      afterAll(async () => {
        if (child) await kill(child)
        await control?.close()
        rmSync(dataDir, { recursive: true, force: true })
      })

      it('every job ends final with one charge or none, and the auditor passes', async () => {
        const random = seededRandom(seed)
        const { accountId } = await openAccount(control.ctx, { login: 'faults', email: null, credits: 0 })
        await grantCredits(control.ctx, accountId, { credits: 1000, kind: 'pack' })
        const jobIds: string[] = []
        for (let i = 0; i < jobsPerRun; i++) {
          const tool = random() < 0.5 ? 'get_random_numbers' : 'get_random_bytes'
          const options = tool === 'get_random_numbers' ? { count: 10 } : { length: 16 }
          const { jobId } = await createJob(control.ctx, {
            accountId,
            tool,
            options,
            input: { kind: 'none' },
            idempotencyKey: `f${i}`,
          })
          jobIds.push(jobId)
        }
        const finalCount = async () => {
          let final = 0
          for (const jobId of jobIds)
            if (isFinished((await readState(control.ctx.store, jobStream(jobId), jobDecider)).state)) final++
          return final
        }
        for (let kill_ = 0; kill_ < killsPerRun; kill_++) {
          child = await startServiceProcess(env)
          // Anywhere from before the first job starts to well into the work.
          await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 1500)))
          await kill(child)
        }
        child = await startServiceProcess(env)
        await pollUntil(finalCount, (n) => n === jobIds.length, 40_000)

        for (const jobId of jobIds) {
          const { state } = await readState(control.ctx.store, jobStream(jobId), jobDecider)
          const books = await jobBooks(control.ctx.store, accountId, jobId)
          expect(books.finals).toHaveLength(1)
          if (state.status === 'succeeded') expect(books.charged - books.refunded).toBe(state.credits)
          else expect(books.charged - books.refunded).toBe(0)
          expect(books.charges).toBeLessThanOrEqual(1)
        }
        const report = await audit(control.ctx.store)
        expect(report.violations).toEqual([])
      })
    })
  }
})
