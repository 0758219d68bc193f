// A job that overruns its memory or time limit fails with out_of_memory / timeout, is refunded, and
// the service keeps serving. The misbehaving runner stands in for a heavy tool (KILN_TEST_RUNNER_MODULE);
// the time limit is shortened in this process's catalog so the test takes seconds, not the catalog's 10 s.
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { getTool } from '../../domain/tools/catalog.ts'
import { audit } from '../../projections/audit.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { behaviours } from './fixtures/misbehaving-runner.ts'
import { balanceOf, type JobView, pollUntil, startJob } from './support/jobs.ts'
import { jobBooks } from './support/ledger.ts'

const limits = getTool('get_random_numbers').limits
const catalogTimeoutMs = limits.timeoutMs

describe('resource limits of a job', () => {
  let service: TestService
  let account: TestAccount

  beforeAll(async () => {
    service = await startTestService({
      maxActiveJobsPerAccount: 10,
      rateLimit: { perSecond: 1000, burst: 1000 },
    })
  })
  afterAll(() => service?.close())
  beforeEach(async () => {
    account = await service.account({ credits: 10, login: 'limits' })
  })
  afterEach(() => {
    delete process.env.KILN_TEST_RUNNER_MODULE
    limits.timeoutMs = catalogTimeoutMs
  })

  async function overrun(count: number): Promise<JobView> {
    process.env.KILN_TEST_RUNNER_MODULE = fileURLToPath(
      new URL('./fixtures/misbehaving-runner.ts', import.meta.url),
    )
    const job = await startJob(account, 'get_random_numbers', { count }, `overrun-${count}`)
    return (await waitForJob(account, job.id)) as unknown as JobView
  }

  async function expectRefundedAndStillServing(job: JobView) {
    expect(job.credits_charged).toBe(0)
    expect(await jobBooks(service.services.ctx.store, account.accountId, job.id)).toMatchObject({
      charges: 1,
      refunds: 1,
      charged: 1,
      refunded: 1,
    })
    await pollUntil(
      () => balanceOf(account),
      (balance) => balance === 10,
    )
    delete process.env.KILN_TEST_RUNNER_MODULE
    expect((await fetch(`${service.baseUrl}/health`)).status).toBe(200)
    const next = await startJob(account, 'get_random_numbers', { count: 2 }, `after-${job.id}`)
    expect((await waitForJob(account, next.id)).status).toBe('succeeded')
    await pollUntil(
      () => balanceOf(account),
      (balance) => balance === 9,
    )
    expect((await audit(service.services.ctx.store)).violations).toEqual([])
  }

  it(`out_of_memory past the tool's ${limits.memoryMb} MB`, async () => {
    const job = await overrun(behaviours.exhaustMemory)
    expect(job).toMatchObject({ status: 'failed', error: { code: 'out_of_memory' } })
    await expectRefundedAndStillServing(job)
  })

  it('timeout past the time limit', async () => {
    limits.timeoutMs = 1500
    const job = await overrun(behaviours.hang)
    expect(job).toMatchObject({ status: 'failed', error: { code: 'timeout' } })
    await expectRefundedAndStillServing(job)
  })
})
