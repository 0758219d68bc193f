// The job lifecycle end to end over a real port, once per dispatch adapter: success with one charge,
// failure with a refund, cancel of a queued job, and exactly-once effects under a duplicated publish,
// a redelivery after a worker crash and a late (or overlapping) delivery.
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { accountDecider, jobDecider } from '../../app/deciders.ts'
import { handleCommand } from '../../app/handle-command.ts'
import { accountStream } from '../../domain/account/events.ts'
import { jobStream } from '../../domain/job/events.ts'
import { getTool } from '../../domain/tools/catalog.ts'
import { audit } from '../../projections/audit.ts'
import { executeJob } from '../../workers/job-executor.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { behaviours } from './fixtures/misbehaving-runner.ts'
import { adapters } from './support/adapters.ts'
import { balanceOf, type JobView, pollUntil, startJob } from './support/jobs.ts'
import { jobBooks } from './support/ledger.ts'

const misbehavingRunner = fileURLToPath(new URL('./fixtures/misbehaving-runner.ts', import.meta.url))
const numbersLimits = getTool('get_random_numbers').limits
const catalogTimeoutMs = numbersLimits.timeoutMs
const dice = { count: 3, min: 1, max: 6 }
let keys = 0
const key = () => `k${++keys}`

for (const adapter of adapters) {
  const ready = peerReady(`lifecycle over ${adapter.name}`, adapter.unavailable)
  describe.runIf(ready)(`job lifecycle over the ${adapter.name} dispatcher`, () => {
    let stopAdapter: () => Promise<void>
    let service: TestService
    let account: TestAccount

    beforeAll(async () => {
      const started = await adapter.start()
      stopAdapter = started.stop
      // One job at a time, so a hanging job can hold the only slot while another waits queued.
      service = await startTestService({
        ...started.config,
        workerConcurrency: 1,
        maxActiveJobsPerAccount: 10,
        rateLimit: { perSecond: 1000, burst: 1000 },
      })
    })
    afterAll(async () => {
      await service?.close()
      await stopAdapter?.()
    })
    afterEach(async () => {
      delete process.env.KILN_TEST_RUNNER_MODULE
      numbersLimits.timeoutMs = catalogTimeoutMs
      // Each test ends with a ledger that proves itself.
      const report = await audit(service.services.ctx.store)
      expect(report.violations).toEqual([])
    })

    const books = (job: JobView) => jobBooks(service.services.ctx.store, account.accountId, job.id)
    const settledBalance = (expected: number) =>
      pollUntil(
        () => balanceOf(account),
        (b) => b === expected,
      )

    /** Occupies the single worker slot with a job that hangs until its (shortened) time limit. */
    async function holdTheWorker(): Promise<JobView> {
      numbersLimits.timeoutMs = 1500
      process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
      const blocker = await startJob(account, 'get_random_numbers', { count: behaviours.hang }, key())
      // Charged means its isolated process is up and measured with the misbehaving runner; only then may
      // later jobs go back to the real runner.
      await pollUntil(
        () => books(blocker),
        (b) => b.charges === 1,
      )
      delete process.env.KILN_TEST_RUNNER_MODULE
      return blocker
    }

    it('runs a job to succeeded with its result and exactly one charge', async () => {
      account = await service.account({ credits: 20, login: `ok-${adapter.name}` })
      const job = await startJob(account, 'get_random_numbers', dice, key())
      const done = (await waitForJob(account, job.id)) as unknown as JobView
      expect(done).toMatchObject({ status: 'succeeded', credits_charged: 1, error: null })
      expect(done.result?.numbers).toHaveLength(3)
      for (const n of done.result!.numbers as number[]) expect(n).toBeGreaterThanOrEqual(1)
      expect(await books(job)).toEqual({
        charges: 1,
        refunds: 0,
        charged: 1,
        refunded: 0,
        starts: 1,
        finals: ['JobSucceeded'],
      })
      await settledBalance(19)
    })

    it('refunds a job that fails after it was charged: credits_charged 0, balance unchanged', async () => {
      account = await service.account({ credits: 20, login: `refund-${adapter.name}` })
      process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
      const job = await startJob(account, 'get_random_numbers', { count: behaviours.throwAfterCharge }, key())
      const done = (await waitForJob(account, job.id)) as unknown as JobView
      expect(done).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'internal' } })
      expect(await books(job)).toEqual({
        charges: 1,
        refunds: 1,
        charged: 1,
        refunded: 1,
        starts: 1,
        finals: ['JobFailed'],
      })
      await settledBalance(20)
    })

    it('cancels a queued job, which then never runs even when its message is delivered', async () => {
      account = await service.account({ credits: 20, login: `cancel-${adapter.name}` })
      const blocker = await holdTheWorker()
      const queued = await startJob(account, 'get_random_numbers', dice, key())
      const canceled = await account.request(`/v1/jobs/${queued.id}/cancel`, { method: 'POST' })
      expect(await canceled.json()).toMatchObject({ id: queued.id, status: 'canceled' })
      expect(await waitForJob(account, blocker.id)).toMatchObject({
        status: 'failed',
        error: { code: 'timeout' },
        credits_charged: 0,
      })
      // The canceled job's message reaches the freed worker, which must leave it alone.
      await pollUntil(
        () => service.services.ctx.dispatcher.pending(),
        (n) => n === 0,
      )
      expect((await waitForJob(account, queued.id)).status).toBe('canceled')
      expect(await books(queued)).toEqual({
        charges: 0,
        refunds: 0,
        charged: 0,
        refunded: 0,
        starts: 0,
        finals: ['JobCanceled'],
      })
      await settledBalance(20)
    })

    it('a duplicated publish of the same job id gives one run and one charge', async () => {
      account = await service.account({ credits: 20, login: `dup-${adapter.name}` })
      const job = await startJob(account, 'get_random_numbers', dice, key())
      const message = { jobId: job.id, tool: 'get_random_numbers' }
      await Promise.all([
        service.services.ctx.dispatcher.publish(message),
        service.services.ctx.dispatcher.publish(message),
      ])
      expect((await waitForJob(account, job.id)).status).toBe('succeeded')
      await pollUntil(
        () => service.services.ctx.dispatcher.pending(),
        (n) => n === 0,
      )
      expect(await books(job)).toEqual({
        charges: 1,
        refunds: 0,
        charged: 1,
        refunded: 0,
        starts: 1,
        finals: ['JobSucceeded'],
      })
      await settledBalance(19)
    })

    it('a redelivery after a worker died mid-job (started and charged) charges once and finishes once', async () => {
      account = await service.account({ credits: 20, login: `crash-${adapter.name}` })
      const blocker = await holdTheWorker()
      const job = await startJob(account, 'get_random_numbers', dice, key())
      // What a worker that died right after the charge leaves behind: attempt 1 started, 1 credit charged.
      const { ctx } = service.services
      await handleCommand(ctx.store, jobStream(job.id), jobDecider, {
        type: 'StartJob',
        data: { attempt: 1, worker: 'dead-worker', now: ctx.now() },
      })
      await handleCommand(ctx.store, accountStream(account.accountId), accountDecider, {
        type: 'ChargeJob',
        data: { jobId: job.id, units: 1, price: 1, now: ctx.now() },
      })
      await handleCommand(ctx.store, jobStream(job.id), jobDecider, {
        type: 'RecordMeasurement',
        data: { units: 1, credits: 1, now: ctx.now() },
      })

      expect(await waitForJob(account, blocker.id)).toMatchObject({
        status: 'failed',
        error: { code: 'timeout' },
        credits_charged: 0,
      })
      const done = (await waitForJob(account, job.id)) as unknown as JobView
      expect(done).toMatchObject({ status: 'succeeded', credits_charged: 1 })
      expect(await books(job)).toEqual({
        charges: 1,
        refunds: 0,
        charged: 1,
        refunded: 0,
        starts: 2,
        finals: ['JobSucceeded'],
      })
      await settledBalance(19)
    })

    it('a late delivery, after the job finished or while it still runs, changes nothing', async () => {
      account = await service.account({ credits: 20, login: `late-${adapter.name}` })
      const { ctx } = service.services
      const delivery = { attempt: 2, working: () => {} }
      const job = await startJob(account, 'get_random_numbers', dice, key())
      // The same message handed to a second worker while the first may still be running it (its ack
      // deadline passed), then once more after it finished (its ack was lost).
      await executeJob(ctx, { jobId: job.id, tool: 'get_random_numbers' }, delivery, 'second-worker')
      const done = (await waitForJob(account, job.id)) as unknown as JobView
      await executeJob(ctx, { jobId: job.id, tool: 'get_random_numbers' }, delivery, 'late-worker')
      expect(done).toMatchObject({ status: 'succeeded', credits_charged: 1 })
      const after = await books(job)
      expect(after).toMatchObject({ charges: 1, refunds: 0, charged: 1, finals: ['JobSucceeded'] })
      expect(((await waitForJob(account, job.id)) as unknown as JobView).result).toEqual(done.result)
      await settledBalance(19)
    })
  })
}
