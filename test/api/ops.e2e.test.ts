// The operator's endpoints on a real service: /metrics in Prometheus text with the figures operators
// read, /ready distinct from /health, and a Request-Id on every response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJob } from '../lifecycle/support/jobs.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'

/** The value of one sample line, e.g. `name{label="x"} 3`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return null
}

describe('operator signals', () => {
  let service: TestService
  let ada: TestAccount

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
    ada = await service.account({ credits: 100, login: 'ada' })
  })
  afterAll(() => service?.close())

  it('counts requests by route template, jobs by tool and outcome, appends, leases and lag', async () => {
    const job = await startJob(ada, 'get_random_numbers', { count: 3 }, 'metrics-1')
    await waitForJob(ada, job.id)
    const response = await fetch(`${service.baseUrl}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/plain')
    const text = await response.text()
    expect(
      sample(text, 'kiln_http_request_duration_seconds_count', { route: '/v1/jobs/:id', status: '200' }),
    ).toBeGreaterThan(0)
    expect(text).not.toContain(job.id)
    expect(
      sample(text, 'kiln_jobs_finished_total', { tool: 'get_random_numbers', outcome: 'succeeded' }),
    ).toBe(1)
    expect(sample(text, 'kiln_job_run_seconds_count', { tool: 'get_random_numbers' })).toBe(1)
    expect(sample(text, 'kiln_event_store_append_seconds_count')).toBeGreaterThan(3)
    expect(sample(text, 'kiln_lease_held', { duty: 'projector' })).toBe(1)
    expect(sample(text, 'kiln_lease_held', { duty: 'housekeeper' })).toBe(1)
    expect(sample(text, 'kiln_projection_lag_events', { model: 'jobs' })).toBeGreaterThanOrEqual(0)
    // The job reads as succeeded once its final event is projected; its worker may still be settling
    // (releasing the account's slot), and the queue counts it until then.
    await expect
      .poll(async () => sample(await (await fetch(`${service.baseUrl}/metrics`)).text(), 'kiln_queue_depth'))
      .toBe(0)
  })

  it('counts the credits charged by tool', async () => {
    const before = await (await fetch(`${service.baseUrl}/metrics`)).text()
    const charged = (text: string) =>
      sample(text, 'kiln_credits_total', { tool: 'get_random_numbers', direction: 'charged' }) ?? 0
    const job = await startJob(ada, 'get_random_numbers', { count: 5 }, 'metrics-2')
    const done = (await waitForJob(ada, job.id)) as unknown as { credits_charged: number }
    const after = await (await fetch(`${service.baseUrl}/metrics`)).text()
    expect(charged(after) - charged(before)).toBe(done.credits_charged)
    expect(done.credits_charged).toBeGreaterThan(0)
  })

  it('answers /ready with the stores and the lag, and 503 past the lag bound', async () => {
    const ready = await fetch(`${service.baseUrl}/ready`)
    expect(ready.status).toBe(200)
    const body = (await ready.json()) as { ready: boolean; lag: Record<string, number> }
    expect(body.ready).toBe(true)
    expect(Object.keys(body.lag)).toEqual(expect.arrayContaining(['jobs']))

    const strict = await startTestService({ readyMaxLag: -1 })
    try {
      const notReady = await fetch(`${strict.baseUrl}/ready`)
      expect(notReady.status).toBe(503)
      expect(((await notReady.json()) as { ready: boolean }).ready).toBe(false)
      expect((await fetch(`${strict.baseUrl}/health`)).status).toBe(200)
    } finally {
      await strict.close()
    }
  })

  it('puts a Request-Id on every response, keeping a plain one the caller sent', async () => {
    const generated = await ada.request('/v1/me')
    expect(generated.headers.get('request-id')).toMatch(/^req_[A-Za-z0-9_-]{16}$/)
    const kept = await ada.request('/v1/me', { headers: { 'request-id': 'client-trace.42' } })
    expect(kept.headers.get('request-id')).toBe('client-trace.42')
    const hostile = await ada.request('/v1/me', { headers: { 'request-id': `<script>${'x'.repeat(100)}` } })
    expect(hostile.headers.get('request-id')).toMatch(/^req_/)
    const unauthenticated = await fetch(`${service.baseUrl}/v1/me`)
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get('request-id')).toMatch(/^req_/)
  })

  it('asks for METRICS_TOKEN when one is configured', async () => {
    const guarded = await startTestService({ metricsToken: 'scrape-secret' })
    try {
      expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(401)
      const ok = await fetch(`${guarded.baseUrl}/metrics`, {
        headers: { authorization: 'Bearer scrape-secret' },
      })
      expect(ok.status).toBe(200)
    } finally {
      await guarded.close()
    }
  })
})
