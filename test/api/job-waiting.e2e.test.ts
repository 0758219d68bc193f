// Prefer: wait and the SSE status stream against a real service on a port. Jobs are held in the
// queue (no worker) where the test needs to decide when they end: a cancel makes them final at a
// moment the test knows, so "answered at once" is measured, not assumed.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

// get_random_numbers asks for an idempotency key; each call here is a new job.
const numbers = () => ({ options: { count: 1, min: 1, max: 6 }, idempotency_key: randomUUID() })

async function createQueued(account: TestAccount): Promise<string> {
  const created = await account.request('/v1/tools/get_random_numbers/jobs', {
    method: 'POST',
    json: numbers(),
  })
  expect(created.status).toBe(202)
  return ((await created.json()) as { id: string }).id
}

interface SseEvent {
  id?: string
  event: string
  data: unknown
}

/** Reads SSE events until `stopAfter` of them arrived (then disconnects) or the server closes. */
async function readEvents(
  account: TestAccount,
  jobId: string,
  { lastEventId, stopAfter = Number.POSITIVE_INFINITY }: { lastEventId?: string; stopAfter?: number } = {},
): Promise<{ events: SseEvent[]; closedByServer: boolean }> {
  const aborter = new AbortController()
  const response = await account.request(`/v1/jobs/${jobId}/events`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
    signal: aborter.signal,
  })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const events: SseEvent[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  const reader = response.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { events, closedByServer: true }
    buffer += decoder.decode(value, { stream: true })
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => !line.startsWith(':'))
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      )
      if (!fields.event) continue
      events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data ?? 'null') })
      if (events.length >= stopAfter) {
        aborter.abort()
        return { events, closedByServer: false }
      }
    }
  }
}

describe('Prefer: wait and the status stream, with jobs held in the queue', () => {
  let service: TestService
  let alice: TestAccount

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } }, { consumeJobs: false })
    alice = await service.account({ credits: 100, login: 'alice' })
  })
  afterAll(async () => service.close())

  it('answers a waiting GET as soon as the job is final, not at a poll tick', async () => {
    const jobId = await createQueued(alice)
    const started = Date.now()
    const waiting = alice.request(`/v1/jobs/${jobId}`, { headers: { prefer: 'wait=30' } })
    await new Promise((resolve) => setTimeout(resolve, 400))
    const canceled = await alice.request(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })
    expect(canceled.status).toBe(200)
    const canceledAt = Date.now()
    const answer = await waiting
    const answeredAt = Date.now()
    expect(answer.status).toBe(200)
    expect(answer.headers.get('preference-applied')).toBe('wait=30')
    expect(((await answer.json()) as { status: string }).status).toBe('canceled')
    expect(canceledAt - started).toBeGreaterThanOrEqual(400)
    console.log(`[prefer-wait] answered ${answeredAt - canceledAt} ms after the cancel was acknowledged`)
    expect(answeredAt - canceledAt).toBeLessThan(150)
  })

  it('answers the job as it is when the wait runs out, and caps the wait at 60 s', async () => {
    const jobId = await createQueued(alice)
    const started = Date.now()
    const answer = await alice.request(`/v1/jobs/${jobId}`, { headers: { prefer: 'respond-async, wait=1' } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(answer.headers.get('preference-applied')).toBe('wait=1')
    expect(((await answer.json()) as { status: string }).status).toBe('queued')

    const capped = alice.request(`/v1/jobs/${jobId}`, { headers: { prefer: 'wait=3600' } })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await alice.request(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })
    expect((await capped).headers.get('preference-applied')).toBe('wait=60')
  })

  it('holds 200 waiting requests as listeners, with no read-store query while they wait', async () => {
    const jobId = await createQueued(alice)
    const reads = vi.spyOn(service.services.models, 'collection')
    const waiters = Array.from({ length: 200 }, () =>
      alice.request(`/v1/jobs/${jobId}`, { headers: { prefer: 'wait=30' } }),
    )
    await vi.waitFor(() => expect(service.services.jobEvents.listenerCount).toBe(200), { timeout: 10_000 })
    const readsWhenAllWaiting = reads.mock.calls.length
    await new Promise((resolve) => setTimeout(resolve, 1000))
    // A second of 200 held requests costs no read at all: nothing polls.
    expect(reads.mock.calls.length).toBe(readsWhenAllWaiting)
    reads.mockRestore()
    const canceledAt = Date.now()
    await alice.request(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })
    const answers = await Promise.all(waiters)
    console.log(`[prefer-wait] 200 held requests all answered ${Date.now() - canceledAt} ms after the cancel`)
    expect(Date.now() - canceledAt).toBeLessThan(3000)
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(((await answer.json()) as { status: string }).status).toBe('canceled')
    }
    expect(service.services.jobEvents.listenerCount).toBe(0)
  })

  it('holds job creation with Prefer: wait and answers the job as it then is', async () => {
    const started = Date.now()
    const created = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: numbers(),
      headers: { prefer: 'wait=1' },
    })
    expect(created.status).toBe(202)
    expect(created.headers.get('preference-applied')).toBe('wait=1')
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    const { id } = (await created.json()) as { id: string }
    await alice.request(`/v1/jobs/${id}/cancel`, { method: 'POST' })
  })

  it('refuses a Prefer header past its 200 characters at creation as at a read, creating nothing', async () => {
    const prefer = `wait=1, ${'x'.repeat(300)}`
    const jobs = async () =>
      ((await (await alice.request('/v1/jobs?limit=100')).json()) as { jobs: unknown[] }).jobs.length
    const before = await jobs()
    const created = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: numbers(),
      headers: { prefer },
    })
    expect(created.status).toBe(400)
    expect(((await created.json()) as { error: { code: string } }).error.code).toBe('invalid_request')
    expect(await jobs()).toBe(before)
    const id = await createQueued(alice)
    expect((await alice.request(`/v1/jobs/${id}`, { headers: { prefer } })).status).toBe(400)
    await alice.request(`/v1/jobs/${id}/cancel`, { method: 'POST' })
  })

  it('streams status changes, and a reconnect with Last-Event-ID misses nothing', async () => {
    const jobId = await createQueued(alice)
    const first = await readEvents(alice, jobId, { stopAfter: 1 })
    expect(first.closedByServer).toBe(false)
    expect(first.events).toEqual([
      { id: '0', event: 'status', data: expect.objectContaining({ status: 'queued' }) },
    ])
    // The job ends while nobody listens.
    await alice.request(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })
    const resumed = await readEvents(alice, jobId, { lastEventId: first.events[0]!.id })
    expect(resumed.closedByServer).toBe(true)
    expect(
      resumed.events.map((event) => [event.id, event.event, (event.data as { status: string }).status]),
    ).toEqual([
      ['1', 'status', 'canceled'],
      [undefined, 'job', 'canceled'],
    ])
    expect((resumed.events[1]!.data as { id: string }).id).toBe(jobId)
  })

  it('refuses another account’s job and a malformed Last-Event-ID', async () => {
    const jobId = await createQueued(alice)
    const bob = await service.account({ login: 'bob' })
    expect((await bob.request(`/v1/jobs/${jobId}/events`)).status).toBe(404)
    const bad = await alice.request(`/v1/jobs/${jobId}/events`, { headers: { 'last-event-id': 'x' } })
    expect(bad.status).toBe(400)
  })
})

describe('the status stream of a job that runs', () => {
  let service: TestService
  let alice: TestAccount

  beforeAll(async () => {
    service = await startTestService()
    alice = await service.account({ credits: 100, login: 'alice' })
  })
  afterAll(async () => service.close())

  it('follows a job live to its end, and a client that reconnects after each event gets the same', async () => {
    const created = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: numbers(),
    })
    const jobId = ((await created.json()) as { id: string }).id
    const live = await readEvents(alice, jobId)
    expect(live.closedByServer).toBe(true)
    const statuses = live.events.map((event) => (event.data as { status: string }).status)
    expect(statuses[0]).toBe('queued')
    expect(statuses).toContain('running')
    expect(statuses.at(-2)).toBe('succeeded')
    expect(live.events.at(-1)?.event).toBe('job')

    // One event per connection, resuming each time: the same sequence, nothing missed or repeated.
    const pieced: SseEvent[] = []
    let lastEventId: string | undefined
    for (;;) {
      const { events, closedByServer } = await readEvents(alice, jobId, { lastEventId, stopAfter: 1 })
      pieced.push(...events)
      if (events[0]?.event === 'job' || closedByServer) break
      lastEventId = events[0]!.id
    }
    expect(pieced).toEqual(live.events)
  })
})
