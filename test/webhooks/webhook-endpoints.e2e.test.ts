// Webhooks end to end: a real service on a port, real jobs, and a real HTTPS receiver on loopback
// that verifies every delivery with the standardwebhooks package. The service trusts the receiver's
// certificate and address through the test-only WEBHOOK_TEST_CA_FILE setting (config.webhooks.loopbackCa).
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { messageIdOf } from '../../app/webhooks/messages.ts'
import { jobStream } from '../../domain/job/events.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const numbers = () => ({ options: { count: 3, min: 1, max: 6 }, idempotency_key: randomUUID() })

interface Endpoint {
  id: string
  secret: string
  status: string
  disabled_reason: string | null
}

interface DeliveryView {
  id: string
  message_id: string
  status: string
  attempts: number
  last_status_code: number | null
}

describe('webhook endpoints, end to end', () => {
  let service: TestService
  let receiver: Receiver
  let alice: TestAccount

  beforeAll(async () => {
    receiver = await startReceiver()
    service = await startTestService({
      rateLimit: { perSecond: 1000, burst: 1000 },
      webhooks: {
        tickMs: 25,
        timeoutMs: 2000,
        disableAfterFailures: 1000,
        retryScale: 0.002,
        loopbackCa: receiver.fixture.ca,
      },
    })
    alice = await service.account({ credits: 1000, login: 'alice' })
  })
  afterAll(async () => {
    await service.close()
    await receiver.close()
  })

  const register = async (account: TestAccount, body: unknown) => {
    const response = await account.request('/v1/webhook_endpoints', { method: 'POST', json: body })
    return {
      status: response.status,
      body: (await response.json()) as Endpoint & { error?: { code: string } },
    }
  }

  /** Runs a job to the end (Prefer: wait) and answers the message id its outcome makes. */
  const runJob = async (account: TestAccount) => {
    const created = await account.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: numbers(),
      headers: { prefer: 'wait=30' },
    })
    const job = (await created.json()) as { id: string; status: string }
    expect(job.status).toBe('succeeded')
    const final = (await service.services.ctx.store.readStream(jobStream(job.id))).find(
      (event) => event.type === 'JobSucceeded',
    )!
    return { jobId: job.id, messageId: messageIdOf(final.id) }
  }

  const deliveries = async (endpointId: string) => {
    const response = await alice.request(`/v1/webhook_endpoints/${endpointId}/deliveries`)
    expect(response.status).toBe(200)
    return ((await response.json()) as { data: DeliveryView[] }).data
  }

  it('refuses URLs that are not public https, at registration', async () => {
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.7/hook',
      'https://localhost/hook',
      'nope',
    ]) {
      const { status, body } = await register(alice, { url })
      expect(status, url).toBe(400)
      expect(body.error?.code).toBe('url_not_allowed')
    }
    const unknownEvent = await register(alice, { url: receiver.url(), events: ['job.exploded'] })
    expect(unknownEvent.status).toBe(400)
  })

  it('delivers every outcome after the receiver comes back, exactly the expected set, each verified', async () => {
    const { status, body: endpoint } = await register(alice, {
      url: receiver.url(),
      events: ['job.succeeded'],
    })
    expect(status).toBe(201)
    expect(endpoint.secret).toMatch(/^whsec_/)
    receiver.secret = endpoint.secret
    // The secret is shown once: never in a listing.
    const listed = await (await alice.request('/v1/webhook_endpoints')).json()
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret)

    receiver.up = false
    const expected = [await runJob(alice), await runJob(alice), await runJob(alice)]
    // Each delivery has been tried and failed at least twice while the receiver was down.
    await vi.waitFor(
      async () => {
        const log = await deliveries(endpoint.id)
        expect(log).toHaveLength(3)
        for (const delivery of log) {
          expect(delivery.status).toBe('pending')
          expect(delivery.attempts).toBeGreaterThanOrEqual(2)
        }
      },
      { timeout: 10_000, interval: 50 },
    )
    expect(receiver.verified).toHaveLength(0)
    receiver.up = true
    await vi.waitFor(
      async () => {
        for (const delivery of await deliveries(endpoint.id)) expect(delivery.status).toBe('delivered')
      },
      { timeout: 20_000, interval: 100 },
    )
    const ids = new Set(receiver.verified.map((delivery) => delivery.id))
    expect([...ids].sort()).toEqual(expected.map((job) => job.messageId).sort())
    expect(new Set(receiver.verified.map((d) => d.payload.data.job?.id))).toEqual(
      new Set(expected.map((job) => job.jobId)),
    )
    for (const delivery of await deliveries(endpoint.id)) expect(delivery.last_status_code).toBe(204)
    expect(receiver.rejected).toBe(0)

    // A delivery sent again by hand arrives again, under the same message id.
    const [first] = await deliveries(endpoint.id)
    const before = receiver.verified.length
    const again = await alice.request(
      `/v1/webhook_endpoints/${endpoint.id}/deliveries/${first!.id}/redeliver`,
      {
        method: 'POST',
      },
    )
    expect(again.status).toBe(202)
    await vi.waitFor(() => expect(receiver.verified.length).toBe(before + 1), { timeout: 5000 })
    expect(receiver.verified.at(-1)?.id).toBe(first!.message_id)

    await alice.request(`/v1/webhook_endpoints/${endpoint.id}`, { method: 'DELETE' })
  })

  it('has the receiver reject a tampered signature or body, and a rotated-out secret', async () => {
    const { body: endpoint } = await register(alice, { url: receiver.url() })
    receiver.secret = endpoint.secret
    const before = receiver.verified.length
    await runJob(alice)
    await vi.waitFor(() => expect(receiver.verified.length).toBe(before + 1), { timeout: 10_000 })
    const good = receiver.verified.at(-1)!
    const headers = { 'webhook-id': good.id, 'webhook-timestamp': good.timestamp }
    expect(await receiver.post({ ...headers, 'webhook-signature': good.signature }, good.body)).toBe(204)
    const signature = good.signature.replace(/,(.)/, (_, c: string) => `,${c === 'A' ? 'B' : 'A'}`)
    expect(await receiver.post({ ...headers, 'webhook-signature': signature }, good.body)).toBe(400)
    const body = good.body.replace('succeeded', 'failed')
    expect(await receiver.post({ ...headers, 'webhook-signature': good.signature }, body)).toBe(400)
    expect(receiver.rejected).toBe(2)

    // After a rotation, deliveries are signed with the new secret only.
    const rotated = (await (
      await alice.request(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { method: 'POST' })
    ).json()) as Endpoint
    expect(rotated.secret).not.toBe(endpoint.secret)
    receiver.secret = rotated.secret
    const count = receiver.verified.length
    await runJob(alice)
    await vi.waitFor(() => expect(receiver.verified.length).toBe(count + 1), { timeout: 10_000 })
    await alice.request(`/v1/webhook_endpoints/${endpoint.id}`, { method: 'DELETE' })
  })

  it('disables an endpoint that keeps failing, and says so', async () => {
    service.services.ctx.config.webhooks.disableAfterFailures = 3
    const { body: endpoint } = await register(alice, { url: receiver.url('/broken') })
    await runJob(alice)
    await runJob(alice)
    await vi.waitFor(
      async () => {
        const view = (await (await alice.request(`/v1/webhook_endpoints/${endpoint.id}`)).json()) as Endpoint
        expect(view.status).toBe('disabled')
        expect(view.disabled_reason).toMatch(/3 deliveries in a row failed.*HTTP 500/)
      },
      { timeout: 10_000, interval: 50 },
    )
    const before = await deliveries(endpoint.id)
    for (const delivery of before) expect(delivery.last_status_code ?? 500).toBe(500)
    // One delivery or two: the first one's retries may fail three times before the second job
    // ends (then its outcome already finds the endpoint disabled), or not (a loaded machine).
    expect(before.length).toBeGreaterThanOrEqual(1)
    expect(before.length).toBeLessThanOrEqual(2)
    // Nothing more is sent to it: later outcomes make no delivery.
    await runJob(alice)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const log = await deliveries(endpoint.id)
    expect(log.filter((delivery) => delivery.status === 'pending')).toHaveLength(0)
    expect(log).toHaveLength(before.length)
  })

  it('tells once when a charge takes the balance below the price of the most used tool', async () => {
    const carol = await service.account({ credits: 3, login: 'carol' })
    const { body: endpoint } = await register(carol, { url: receiver.url(), events: ['credits.low'] })
    receiver.secret = endpoint.secret
    const before = receiver.verified.length
    for (let i = 0; i < 3; i++) await runJob(carol)
    await vi.waitFor(
      () => expect(receiver.verified.filter((d) => d.payload.type === 'credits.low')).toHaveLength(1),
      { timeout: 10_000 },
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    const told = receiver.verified.slice(before)
    expect(told).toHaveLength(1)
    expect(told[0]!.payload.data).toMatchObject({
      balance: 0,
      threshold: 1,
      most_used_tool: 'get_random_numbers',
    })
  })

  it('keeps accounts apart', async () => {
    const bob = await service.account({ login: 'bob' })
    const { body: endpoint } = await register(alice, { url: receiver.url() })
    expect((await bob.request(`/v1/webhook_endpoints/${endpoint.id}`)).status).toBe(404)
    expect((await bob.request(`/v1/webhook_endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(404)
    expect((await bob.request(`/v1/webhook_endpoints/${endpoint.id}/deliveries`)).status).toBe(404)
  })
})
