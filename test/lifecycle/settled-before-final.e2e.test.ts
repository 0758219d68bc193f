// A job reads final only once its account is settled: a client that sees its job failed sees the
// refund in Billing at the same moment, and one that sees it succeeded can start its next job within
// its active-jobs limit. Over a real port, with the settlement held back (its append) or the accounts
// model made slow (its writes): either way the job must not read final before Billing agrees.
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ServiceContext } from '../../app/context.ts'
import { accountStream } from '../../domain/account/events.ts'
import { jobStream } from '../../domain/job/events.ts'
import type { EventStore } from '../../domain/ports/event-store.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { behaviours } from './fixtures/misbehaving-runner.ts'
import { balanceOf, type JobView, pollUntil, startJob } from './support/jobs.ts'

const misbehavingRunner = fileURLToPath(new URL('./fixtures/misbehaving-runner.ts', import.meta.url))
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let service: TestService

beforeAll(async () => {
  service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
})
afterAll(() => service?.close())
afterEach(() => {
  delete process.env.KILN_TEST_RUNNER_MODULE
  vi.restoreAllMocks()
})

/** Holds every append to an account stream that releases a job, until `release()`. */
function holdSettlements(ctx: ServiceContext) {
  const original = ctx.store
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const holding: EventStore = Object.create(original)
  holding.append = async (streamId, events, expected) => {
    if (streamId.startsWith(accountStream('')) && events.some((e) => e.type === 'JobReleased')) await released
    return original.append(streamId, events, expected)
  }
  ctx.store = holding
  return {
    release() {
      ctx.store = original
      release()
    },
  }
}

const readJob = async (account: TestAccount, id: string) =>
  (await (await account.request(`/v1/jobs/${id}`)).json()) as JobView

async function ledgerOf(account: TestAccount, jobId: string) {
  const billing = (await (await account.request('/v1/billing')).json()) as {
    entries: { kind: string; job_id: string | null }[]
  }
  return billing.entries.filter((entry) => entry.job_id === jobId).map((entry) => entry.kind)
}

/** Reads the job's status stream to its end; `finalAt` is when the text first told of the failure. */
async function followStream(account: TestAccount, jobId: string) {
  const response = await account.request(`/v1/jobs/${jobId}/events`)
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let finalAt = Number.POSITIVE_INFINITY
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { text, finalAt }
    text += decoder.decode(value, { stream: true })
    if (finalAt === Number.POSITIVE_INFINITY && text.includes('"status":"failed"')) finalAt = Date.now()
  }
}

async function finalEventOf(id: string) {
  return pollUntil(
    async () => (await service.services.ctx.store.readStream(jobStream(id))).at(-1)?.type,
    (type) => type === 'JobFailed' || type === 'JobSucceeded',
  )
}

describe('a finished job reads final once its account is settled', () => {
  it('a failed job reads running until its refund is appended, then failed with Billing refunded', async () => {
    const ada = await service.account({ credits: 20, login: 'settle-ada' })
    process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
    const hold = holdSettlements(service.services.ctx)
    const job = await startJob(ada, 'get_random_numbers', { count: behaviours.throwAfterCharge }, 'settle-1')
    expect(await finalEventOf(job.id)).toBe('JobFailed')
    // A client asking to wait for the end is held past the failure too, and so is the status stream.
    const waiting = ada.request(`/v1/jobs/${job.id}`, { headers: { prefer: 'wait=20' } })
    const streamed = followStream(ada, job.id)
    await delay(300)
    const meanwhile = await readJob(ada, job.id)
    expect(meanwhile.status).toBe('running')
    expect(await balanceOf(ada)).toBe(19)

    const releasedAt = Date.now()
    hold.release()
    const done = (await (await waiting).json()) as JobView
    const stream = await streamed
    expect(stream.finalAt).toBeGreaterThanOrEqual(releasedAt)
    expect(stream.text).toMatch(/event: status\ndata: \{"status":"failed"/)
    expect(stream.text).toMatch(/event: job\ndata: \{[^\n]*"status":"failed"/)
    expect(done).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'internal' } })
    // Read right after, with no polling: the refund is there.
    expect(await ledgerOf(ada, job.id)).toEqual(['refund', 'charge'])
    expect(await balanceOf(ada)).toBe(20)
  })

  it('a job reads final only once the accounts model shows its settlement, however slow that model is', async () => {
    const bea = await service.account({ credits: 20, login: 'settle-bea' })
    // Every write of the accounts model lands 400 ms late; the jobs model's are as fast as ever.
    const commit = SqliteReadStore.prototype.putGuardedWithCounter
    vi.spyOn(SqliteReadStore.prototype, 'putGuardedWithCounter').mockImplementation(async function (
      this: SqliteReadStore,
      ...args
    ) {
      if (args[1].key.startsWith('checkpoint:accounts:')) await delay(400)
      return commit.apply(this, args)
    })
    process.env.KILN_TEST_RUNNER_MODULE = misbehavingRunner
    const failing = await startJob(
      bea,
      'get_random_numbers',
      { count: behaviours.throwAfterCharge },
      'slow-1',
    )
    const failed = await pollUntil(
      () => readJob(bea, failing.id),
      (job) => job.status !== 'queued' && job.status !== 'running',
    )
    expect(failed.status).toBe('failed')
    // Billing shows the job's charge and its refund, not an account from before either.
    expect(await ledgerOf(bea, failing.id)).toEqual(['refund', 'charge'])
    expect(await balanceOf(bea)).toBe(20)

    // With one active job allowed, the next job is admitted the moment the last one reads final.
    delete process.env.KILN_TEST_RUNNER_MODULE
    const first = await startJob(bea, 'get_random_numbers', { count: 2, min: 1, max: 6 }, 'slow-2')
    const succeeded = await pollUntil(
      () => readJob(bea, first.id),
      (job) => job.status !== 'queued' && job.status !== 'running',
    )
    expect(succeeded.status).toBe('succeeded')
    const me = (await (await bea.request('/v1/me')).json()) as { usage: { active_jobs: number } }
    expect(me.usage.active_jobs).toBe(0)
    const second = await bea.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: { count: 2, min: 1, max: 6 }, idempotency_key: 'slow-3' },
    })
    expect(second.status).toBe(202)
  })
})
