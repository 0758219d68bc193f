// Every endpoint of the /v1 facade over a real port, with the error codes the spec lists for it.
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setAccountEnabled } from '../../app/accounts.ts'
import { accountDecider } from '../../app/deciders.ts'
import { handleCommand } from '../../app/handle-command.ts'
import { accountStream } from '../../domain/account/events.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'

const numbers = (key: string, options: Record<string, unknown> = { count: 3, min: 1, max: 6 }) => ({
  json: { options, idempotency_key: key },
  method: 'POST',
})
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string } }).error

/** A PUT with chunked transfer encoding: no Content-Length header. */
function putChunked(url: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'PUT',
        headers: { 'transfer-encoding': 'chunked', 'content-type': 'application/octet-stream' },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('REST facade (running jobs)', () => {
  let service: TestService
  let alice: TestAccount
  let bob: TestAccount

  beforeAll(async () => {
    service = await startTestService({ uploadMaxBytes: 4096, rateLimit: { perSecond: 1000, burst: 1000 } })
    alice = await service.account({ credits: 50, login: 'alice' })
    bob = await service.account({ credits: 50, login: 'bob' })
  })
  afterAll(() => service.close())

  it('GET /health answers without authentication', async () => {
    const response = await fetch(`${service.baseUrl}/health`)
    expect(response.status).toBe(200)
  })

  it('401 unauthorized without a key, with a wrong key, with a malformed header', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer kiln_sk_' + 'x'.repeat(43) },
      { authorization: 'Basic abc' },
    ]) {
      const response = await fetch(`${service.baseUrl}/v1/me`, { headers })
      expect(response.status).toBe(401)
      expect((await errorOf(response)).code).toBe('unauthorized')
    }
  })

  it('unknown routes are not_found; malformed JSON is invalid_json; an oversized JSON body is too_large', async () => {
    const missing = await alice.request('/v1/nothing')
    expect([missing.status, (await errorOf(missing)).code]).toEqual([404, 'not_found'])
    const malformed = await alice.request('/v1/uploads', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"filename":',
    })
    expect([malformed.status, (await errorOf(malformed)).code]).toEqual([400, 'invalid_json'])
    const huge = await alice.request('/v1/uploads', {
      method: 'POST',
      json: { filename: 'x'.repeat(2 * 1024 * 1024) },
    })
    expect([huge.status, (await errorOf(huge)).code]).toEqual([413, 'too_large'])
  })

  it('GET /v1/tools lists the ten tools with JSON Schema options and the caller limits', async () => {
    const { tools } = (await (await alice.request('/v1/tools')).json()) as {
      tools: Record<string, unknown>[]
    }
    // Generation tools are listed only when a provider is configured (none is here).
    expect(tools.map((t) => t.id).sort()).toEqual([
      'extract_pdf',
      'get_random_bytes',
      'get_random_numbers',
      'inspect_3d_model',
      'optimize_3d_model',
      'simplify_3d_model',
      'split_3d_model',
    ])
    const split = tools.find((t) => t.id === 'split_3d_model')!
    expect(split).toMatchObject({
      toolset: '3d',
      input: { kind: 'file' },
      idempotency_required: false,
      jobs: `${service.baseUrl}/v1/tools/split_3d_model/jobs`,
      mcp: `${service.baseUrl}/mcp/3d`,
    })
    expect((split.options as { additionalProperties: boolean }).additionalProperties).toBe(false)
    expect(tools.find((t) => t.id === 'optimize_3d_model')!.limits).toMatchObject({
      jobs_per_day: 3,
      jobs_per_day_after_purchase: 20,
    })
  })

  it('runs a parameters-only job: 202, then 200 with the same job for the same key, and charges it', async () => {
    const created = await alice.request('/v1/tools/get_random_numbers/jobs', numbers('same-key'))
    expect(created.status).toBe(202)
    const job = (await created.json()) as { id: string }
    expect(job.id).toMatch(/^j_[0-9a-z]{26}$/)
    const again = await alice.request('/v1/tools/get_random_numbers/jobs', numbers('same-key'))
    expect(again.status).toBe(200)
    expect(((await again.json()) as { id: string }).id).toBe(job.id)
    const done = await waitForJob(alice, job.id)
    expect(done).toMatchObject({ status: 'succeeded', credits_charged: 1 })
    expect((done.result as { numbers: number[] }).numbers).toHaveLength(3)
    const billing = (await (await alice.request('/v1/billing')).json()) as {
      balance: number
      entries: { kind: string }[]
    }
    expect(billing.balance).toBe(49)
    expect(billing.entries[0]).toMatchObject({
      kind: 'charge',
      amount: 1,
      job_id: job.id,
      tool: 'get_random_numbers',
    })
  })

  it('409 idempotency_conflict for a different request or another tool under the same key', async () => {
    const other = await alice.request('/v1/tools/get_random_numbers/jobs', numbers('same-key', { count: 4 }))
    expect([other.status, (await errorOf(other)).code]).toEqual([409, 'idempotency_conflict'])
    const otherTool = await alice.request('/v1/tools/get_random_bytes/jobs', {
      method: 'POST',
      json: { options: {}, idempotency_key: 'same-key' },
    })
    expect([otherTool.status, (await errorOf(otherTool)).code]).toEqual([409, 'idempotency_conflict'])
  })

  it('400 for a missing required idempotency key, invalid options, unknown fields, a file for a parameters tool', async () => {
    const noKey = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: {} },
    })
    expect([noKey.status, (await errorOf(noKey)).code]).toEqual([400, 'invalid_request'])
    const badOptions = await alice.request(
      '/v1/tools/get_random_numbers/jobs',
      numbers('k-bad', { count: 5000, colour: 'red' }),
    )
    const badError = await errorOf(badOptions)
    expect([badOptions.status, badError.code]).toEqual([400, 'invalid_options'])
    expect(badError.message).toMatch(/colour/)
    const unknownField = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: {}, idempotency_key: 'k', extra: 1 },
    })
    expect([unknownField.status, (await errorOf(unknownField)).code]).toEqual([400, 'invalid_request'])
    const withFile = await alice.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { upload_id: `up_${'a'.repeat(26)}`, idempotency_key: 'k2' },
    })
    expect([withFile.status, (await errorOf(withFile)).code]).toEqual([400, 'invalid_request'])
  })

  it('404 for an unknown tool; another account’s job is 404, never 403', async () => {
    const unknown = await alice.request('/v1/tools/make_coffee/jobs', { method: 'POST', json: {} })
    expect([unknown.status, (await errorOf(unknown)).code]).toEqual([404, 'not_found'])
    const { jobs } = (await (await alice.request('/v1/jobs')).json()) as { jobs: { id: string }[] }
    const foreign = await bob.request(`/v1/jobs/${jobs[0]!.id}`)
    expect([foreign.status, (await errorOf(foreign)).code]).toEqual([404, 'not_found'])
    const foreignDelete = await bob.request(`/v1/jobs/${jobs[0]!.id}`, { method: 'DELETE' })
    expect(foreignDelete.status).toBe(404)
  })

  it('lists jobs newest first with limit, before, tool and status', async () => {
    for (const key of ['list-1', 'list-2']) {
      const created = (await (
        await bob.request('/v1/tools/get_random_numbers/jobs', numbers(key))
      ).json()) as { id: string }
      await waitForJob(bob, created.id)
    }
    const bytes = (await (
      await bob.request('/v1/tools/get_random_bytes/jobs', {
        method: 'POST',
        json: { options: { length: 8 } },
      })
    ).json()) as { id: string }
    await waitForJob(bob, bytes.id)
    const page1 = (await (await bob.request('/v1/jobs?limit=2')).json()) as {
      jobs: { id: string; tool: string }[]
      next_before: number
    }
    expect(page1.jobs.map((j) => j.id)[0]).toBe(bytes.id)
    expect(page1.jobs).toHaveLength(2)
    expect(page1.next_before).toEqual(expect.any(Number))
    const page2 = (await (await bob.request(`/v1/jobs?limit=2&before=${page1.next_before}`)).json()) as {
      jobs: unknown[]
      next_before: number | null
    }
    expect(page2.jobs).toHaveLength(1)
    expect(page2.next_before).toBeNull()
    const filtered = (await (
      await bob.request('/v1/jobs?tool=get_random_bytes&status=succeeded')
    ).json()) as { jobs: { id: string }[] }
    expect(filtered.jobs.map((j) => j.id)).toEqual([bytes.id])
    // Decimal digits only: an empty value, spaces, exponents and hex are not numbers here.
    for (const query of ['limit=0', 'before=', 'before=%20', 'limit=1e1', 'before=0x10', 'before=-1']) {
      const bad = await bob.request(`/v1/jobs?${query}`)
      expect([bad.status, (await errorOf(bad)).code], query).toEqual([400, 'invalid_request'])
    }
  })

  it('cancel of a finished job is job_running; delete removes it; its key then answers 410 job_deleted', async () => {
    const created = (await (
      await alice.request('/v1/tools/get_random_numbers/jobs', numbers('to-delete'))
    ).json()) as { id: string }
    await waitForJob(alice, created.id)
    const cancel = await alice.request(`/v1/jobs/${created.id}/cancel`, { method: 'POST' })
    expect([cancel.status, (await errorOf(cancel)).code]).toEqual([409, 'job_running'])
    const deleted = await alice.request(`/v1/jobs/${created.id}`, { method: 'DELETE' })
    expect(await deleted.json()).toEqual({ id: created.id, status: 'deleted' })
    expect((await alice.request(`/v1/jobs/${created.id}`)).status).toBe(404)
    const reuse = await alice.request('/v1/tools/get_random_numbers/jobs', numbers('to-delete'))
    expect([reuse.status, (await errorOf(reuse)).code]).toEqual([410, 'job_deleted'])
  })

  it('uploads: 201 with a signed PUT URL; 411 without Content-Length; 413 over the limit; 403 bad signature; 409 second PUT', async () => {
    const created = await alice.request('/v1/uploads', { method: 'POST', json: { filename: 'cube.obj' } })
    expect(created.status).toBe(201)
    const upload = (await created.json()) as {
      upload_id: string
      url: string
      method: string
      max_bytes: number
      expires_at: string
    }
    expect(upload).toMatchObject({ method: 'PUT', max_bytes: 4096 })
    expect(upload.upload_id).toMatch(/^up_[0-9a-z]{26}$/)
    expect(Date.parse(upload.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000)

    const chunked = await putChunked(upload.url, Buffer.from('v 0 0 0\n'))
    expect([chunked.status, JSON.parse(chunked.body).error.code]).toEqual([411, 'length_required'])
    const tooBig = await fetch(upload.url, { method: 'PUT', body: Buffer.alloc(5000) })
    expect([tooBig.status, (await errorOf(tooBig)).code]).toEqual([413, 'too_large'])
    const forged = await fetch(upload.url.replace(/sig=[^&]+/, `sig=${'A'.repeat(43)}`), {
      method: 'PUT',
      body: 'v 0 0 0\n',
    })
    expect([forged.status, (await errorOf(forged)).code]).toEqual([403, 'invalid_token'])
    const first = await fetch(upload.url, { method: 'PUT', body: 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' })
    expect(first.status).toBe(200)
    const second = await fetch(upload.url, { method: 'PUT', body: 'v 0 0 0\n' })
    expect([second.status, (await errorOf(second)).code]).toEqual([409, 'already_uploaded'])
    const noFilename = await alice.request('/v1/uploads', { method: 'POST', json: {} })
    expect(noFilename.status).toBe(400)
  })

  it('raw-body jobs need Content-Length and a filename, and respect the size limit', async () => {
    const noName = await alice.request('/v1/tools/inspect_3d_model/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'v 0 0 0\n',
    })
    expect([noName.status, (await errorOf(noName)).code]).toEqual([400, 'invalid_request'])
    const tooBig = await alice.request('/v1/tools/inspect_3d_model/jobs?filename=a.obj', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(5000),
    })
    expect([tooBig.status, (await errorOf(tooBig)).code]).toEqual([413, 'too_large'])
    const wrongType = await alice.request('/v1/tools/inspect_3d_model/jobs?filename=a.docx', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'hello',
    })
    expect([wrongType.status, (await errorOf(wrongType)).code]).toEqual([400, 'invalid_request'])
  })

  it('URL inputs to private or loopback addresses are refused with url_not_allowed', async () => {
    for (const url of [
      'https://127.0.0.1/a.obj',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:127.0.0.1]/a.obj',
      'https://2130706433/a.obj',
      'http://example.com/a.obj',
    ]) {
      const response = await alice.request('/v1/tools/inspect_3d_model/jobs', {
        method: 'POST',
        json: { url },
      })
      expect([url, response.status, (await errorOf(response)).code]).toEqual([url, 400, 'url_not_allowed'])
    }
  })

  it('an upload of another account, or an unknown upload, is upload_not_found', async () => {
    const created = (await (
      await alice.request('/v1/uploads', { method: 'POST', json: { filename: 'tri.obj' } })
    ).json()) as { upload_id: string; url: string }
    await fetch(created.url, { method: 'PUT', body: 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' })
    const foreign = await bob.request('/v1/tools/inspect_3d_model/jobs', {
      method: 'POST',
      json: { upload_id: created.upload_id },
    })
    expect([foreign.status, (await errorOf(foreign)).code]).toEqual([404, 'upload_not_found'])
  })

  it('/v1/me and /v1/billing describe the account; the catalog lists packs and bundles but is unavailable without a processor', async () => {
    const me = (await (await alice.request('/v1/me')).json()) as Record<string, unknown>
    expect(me).toMatchObject({ id: alice.accountId, login: 'alice', auth: 'key', plan: 'free' })
    expect((me.credits as { balance: number }).balance).toBeGreaterThan(0)
    const catalog = await (await alice.request('/v1/billing/catalog')).json()
    expect(catalog).toMatchObject({
      available: false,
      items: expect.arrayContaining([
        expect.objectContaining({ kind: 'pack' }),
        expect.objectContaining({ kind: 'bundle' }),
      ]),
    })
  })

  it('keys are for console sessions: 403 for API keys; create shows the secret once; list; revoke; 404 unknown', async () => {
    const forbidden = await alice.request('/v1/keys')
    expect(forbidden.status).toBe(403)
    const console = { token: alice.consoleToken }
    const created = await alice.request('/v1/keys', { method: 'POST', json: { name: 'ci' }, ...console })
    expect(created.status).toBe(201)
    const key = (await created.json()) as { id: string; key: string; prefix: string; name: string }
    expect(key.key.startsWith(key.prefix)).toBe(true)
    const listed = (await (await alice.request('/v1/keys', console)).json()) as {
      keys: Record<string, unknown>[]
    }
    expect(listed.keys.map((k) => k.id)).toContain(key.id)
    expect(listed.keys.every((k) => !('key' in k))).toBe(true)
    expect((await alice.request('/v1/me', { token: key.key })).status).toBe(200)
    const revoked = await alice.request(`/v1/keys/${key.id}`, { method: 'DELETE', ...console })
    expect(revoked.status).toBe(200)
    expect((await alice.request('/v1/me', { token: key.key })).status).toBe(401)
    expect((await alice.request('/v1/keys/key_nope', { method: 'DELETE', ...console })).status).toBe(404)
    const longName = await alice.request('/v1/keys', {
      method: 'POST',
      json: { name: 'x'.repeat(61) },
      ...console,
    })
    expect(longName.status).toBe(400)
  })

  it('409 key_limit past 10 active keys', async () => {
    const console = { token: bob.consoleToken }
    let last: Response | null = null
    for (let i = 0; i < 10; i++)
      last = await bob.request('/v1/keys', { method: 'POST', json: { name: `k${i}` }, ...console })
    expect([last!.status, (await errorOf(last!)).code]).toEqual([409, 'key_limit'])
  })

  it('checkout and portal are console-only, and 503 without a payment processor', async () => {
    const body = { item: 'pack_small', request_id: '8a1f8f5e-2f4b-4d6a-9c1e-1f2a3b4c5d6e' }
    expect((await alice.request('/v1/billing/checkout', { method: 'POST', json: body })).status).toBe(403)
    const checkout = await alice.request('/v1/billing/checkout', {
      method: 'POST',
      json: body,
      token: alice.consoleToken,
    })
    expect(checkout.status).toBe(503)
    expect(
      (await alice.request('/v1/billing/portal', { method: 'POST', token: alice.consoleToken })).status,
    ).toBe(503)
  })

  it('a frozen account may not run jobs; a disabled one is refused everywhere', async () => {
    const carol = await service.account({ credits: 10, login: 'carol' })
    const { position } = await handleCommand(
      service.services.ctx.store,
      accountStream(carol.accountId),
      accountDecider,
      { type: 'Freeze', data: { disputeId: 'dp_1', now: Date.now() } },
    )
    await service.services.waitForPosition(position)
    const frozen = await carol.request('/v1/tools/get_random_numbers/jobs', numbers('frozen'))
    expect([frozen.status, (await errorOf(frozen)).code]).toEqual([403, 'account_frozen'])
    const disabled = await setAccountEnabled(service.services.ctx, carol.accountId, false)
    await service.services.waitForPosition(disabled.position)
    const me = await carol.request('/v1/me')
    expect([me.status, (await errorOf(me)).code]).toEqual([403, 'account_disabled'])
  })

  it('402 insufficient_credits when the balance is below the smallest price', async () => {
    const broke = await service.account({ credits: 0, login: 'dave' })
    const response = await broke.request('/v1/tools/get_random_numbers/jobs', numbers('broke'))
    const error = await errorOf(response)
    expect([response.status, error.code]).toEqual([402, 'insufficient_credits'])
    expect(error.message).toMatch(/costs at least 1 credits; the available balance is 0/)
  })
})

describe('REST facade (queue held)', () => {
  let service: TestService
  let erin: TestAccount

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 2, burst: 12 } }, { consumeJobs: false })
    erin = await service.account({ credits: 20, login: 'erin' })
  })
  afterAll(() => service.close())

  it('a queued job blocks a second one (429 too_many_active_jobs), can be canceled twice safely, and DELETE of a queued job cancels it', async () => {
    const first = (await (await erin.request('/v1/tools/get_random_numbers/jobs', numbers('q1'))).json()) as {
      id: string
      status: string
    }
    expect(first.status).toBe('queued')
    const second = await erin.request('/v1/tools/get_random_numbers/jobs', numbers('q2'))
    expect([second.status, (await errorOf(second)).code]).toEqual([429, 'too_many_active_jobs'])
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/)
    const cancel = await erin.request(`/v1/jobs/${first.id}/cancel`, { method: 'POST' })
    expect(await cancel.json()).toEqual({ id: first.id, status: 'canceled' })
    expect((await erin.request(`/v1/jobs/${first.id}/cancel`, { method: 'POST' })).status).toBe(200)
    const third = (await (await erin.request('/v1/tools/get_random_numbers/jobs', numbers('q3'))).json()) as {
      id: string
    }
    const deleted = await erin.request(`/v1/jobs/${third.id}`, { method: 'DELETE' })
    expect(await deleted.json()).toEqual({ id: third.id, status: 'canceled' })
    const billing = (await (await erin.request('/v1/billing')).json()) as { balance: number }
    expect(billing.balance).toBe(20)
  })

  it('429 rate_limited with Retry-After past the per-key rate', async () => {
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < 30; i++) {
      const response = await erin.request('/v1/me')
      statuses.push(response.status)
      if (response.status === 429) retryAfter = response.headers.get('retry-after')
      await response.arrayBuffer()
    }
    expect(statuses).toContain(429)
    expect(retryAfter).toMatch(/^\d+$/)
  })
})

describe('REST facade (saturated queue)', () => {
  it('503 busy with Retry-After when the queue is full', async () => {
    const service = await startTestService({ maxQueuedJobs: 0 }, { consumeJobs: false })
    try {
      const frank = await service.account({ credits: 5, login: 'frank' })
      const response = await frank.request('/v1/tools/get_random_numbers/jobs', numbers('busy'))
      expect([response.status, (await errorOf(response)).code]).toEqual([503, 'busy'])
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/)
    } finally {
      await service.close()
    }
  })
})
