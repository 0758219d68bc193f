// Issue 20 item 8, end to end over a real port: the API admits a job, then stalls before recording
// it; meanwhile a housekeeper whose clock is 61 s ahead releases the admission as orphaned; then the
// job is recorded and dispatched. It must fail without running and cost nothing (before the fix it
// ran and showed credits_charged = price with no charge on the ledger).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServiceContext } from '../../app/context.ts'
import { accountStream } from '../../domain/account/events.ts'
import { audit } from '../../projections/audit.ts'
import { Housekeeper } from '../../workers/housekeeper.ts'
import { startTestService, type TestService, waitForJob } from '../support/service.ts'
import { balanceOf, type JobView, pollUntil } from './support/jobs.ts'
import { jobBooks } from './support/ledger.ts'
import { storeAppendingThrough } from './support/store-views.ts'

let service: TestService

beforeAll(async () => {
  service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
})
afterAll(() => service?.close())

/**
 * Holds the append of the next JobCreated until `release()`; `reached` settles when it arrives. The
 * service's store is swapped for a view of it whose `append` waits there, then put back. Creation
 * appends the admission and the job in one appendMany, which the SQLite store commits at once; the
 * view appends them one after the other instead, as the KurrentDB adapter does on servers without
 * multi-stream append (before 25.1), where this gap can still open.
 */
function holdJobCreation(ctx: ServiceContext) {
  const original = ctx.store
  let arrived!: () => void
  let release!: () => void
  const reached = new Promise<void>((resolve) => {
    arrived = resolve
  })
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  ctx.store = storeAppendingThrough(original, async (streamId, events, expected) => {
    if (streamId.startsWith('job-') && events.some((e) => e.type === 'JobCreated')) {
      ctx.store = original
      arrived()
      await released
    }
    return original.append(streamId, events, expected)
  })
  return { reached, release }
}

async function releaseOrphansAt(offsetMs: number) {
  const ctx = service.services.ctx
  const housekeeper = new Housekeeper(
    { ...ctx, now: () => ctx.now() + offsetMs },
    { intervalMs: 3_600_000, runningJobsAreOrphansAtStart: false },
  )
  await housekeeper.start()
  await pollUntil(
    async () => housekeeper.caughtUp,
    (caughtUp) => caughtUp,
  )
  await housekeeper.tick()
  await housekeeper.stop()
}

describe('a job recorded after the housekeeper released its admission', () => {
  it('fails without running and costs nothing; the ledger still proves itself', async () => {
    const ada = await service.account({ credits: 10, login: 'late-ada' })
    const store = service.services.ctx.store
    const hold = holdJobCreation(service.services.ctx)
    const creating = ada.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: { count: 3, min: 1, max: 6 }, idempotency_key: 'late-1' },
    })
    await hold.reached
    await releaseOrphansAt(61_000)
    const accountEvents = await store.readStream(accountStream(ada.accountId))
    expect(accountEvents.map((e) => e.type)).toContain('JobReleased')
    hold.release()

    const response = await creating
    expect(response.status).toBe(202)
    const { id } = (await response.json()) as JobView
    const job = (await waitForJob(ada, id)) as unknown as JobView
    expect(job.status).toBe('failed')
    expect(job.credits_charged).toBe(0)
    expect(job.result).toBeNull()
    expect(job.error?.code).toBe('internal')

    const books = await jobBooks(store, ada.accountId, id)
    expect(books).toMatchObject({ charges: 0, refunds: 0, finals: ['JobFailed'] })
    const declines = (await store.readStream(accountStream(ada.accountId))).filter(
      (e) => e.type === 'JobChargeDeclined',
    )
    expect(declines.map((e) => e.data)).toMatchObject([{ jobId: id, reason: 'admission_released' }])
    expect(await balanceOf(ada)).toBe(10)

    // The slot the release freed is really free: the next job runs and is charged once.
    const next = await ada.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: { count: 3, min: 1, max: 6 }, idempotency_key: 'late-2' },
    })
    expect(next.status).toBe(202)
    const done = (await waitForJob(ada, ((await next.json()) as JobView).id)) as unknown as JobView
    expect(done).toMatchObject({ status: 'succeeded', credits_charged: 1 })
    await pollUntil(
      () => balanceOf(ada),
      (balance) => balance === 9,
    )

    const report = await audit(store)
    expect(report.violations).toEqual([])
  })
})
