// Per-account storage caps (issue 20 item 1): upload URLs waiting for their PUT are capped (429
// quota_exceeded with Retry-After), bytes kept per account are capped (413 too_large, at the PUT and
// at creation once full), job inputs and outputs count, and GET /v1/me shows the caps and the use.
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { tinyPdf } from '../support/tiny-pdf.ts'

interface Me {
  limits: { pending_uploads: number; stored_bytes: number }
  usage: { pending_uploads: number; stored_bytes: number }
}

describe('per-account storage caps', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({
      storageLimits: { pendingUploads: 3, storedBytes: 10_000 },
      rateLimit: { perSecond: 1000, burst: 1000 },
    })
    ann = await service.account({ login: 'ann', credits: 100 })
  })
  afterAll(() => service?.close())

  const me = async () => (await (await ann.request('/v1/me')).json()) as Me
  const createUpload = (filename = 'model.obj') =>
    ann.request('/v1/uploads', { method: 'POST', json: { filename } })
  const put = (url: string, bytes: number) => fetch(url, { method: 'PUT', body: Buffer.alloc(bytes, 0x20) })

  it('caps upload URLs waiting for their file and stored bytes, and shows both in /v1/me', async () => {
    expect((await me()).limits).toMatchObject({ pending_uploads: 3, stored_bytes: 10_000 })

    const urls: string[] = []
    for (let i = 0; i < 3; i++) {
      const created = await createUpload()
      expect(created.status).toBe(201)
      urls.push(((await created.json()) as { url: string }).url)
    }
    const refused = await createUpload()
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await me()).usage).toMatchObject({ pending_uploads: 3, stored_bytes: 0 })

    expect((await put(urls[0]!, 6000)).status).toBe(200)
    expect((await me()).usage).toMatchObject({ pending_uploads: 2, stored_bytes: 6000 })
    expect((await createUpload()).status).toBe(201)

    const tooMuch = await put(urls[1]!, 5000)
    expect(tooMuch.status).toBe(413)
    expect(((await tooMuch.json()) as { error: { code: string } }).error.code).toBe('too_large')
    expect((await put(urls[1]!, 4000)).status).toBe(200)
    expect((await me()).usage.stored_bytes).toBe(10_000)

    const full = await createUpload()
    expect(full.status).toBe(413)
    expect(((await full.json()) as { error: { code: string } }).error.code).toBe('too_large')
  })

  it('counts a job input and its outputs', async () => {
    const bob = await service.account({ login: 'bob', credits: 100 })
    const created = await bob.request('/v1/tools/extract_pdf/jobs?filename=a.pdf', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: tinyPdf('Storage counts'),
    })
    expect(created.status).toBe(202)
    const job = (await waitForJob(bob, ((await created.json()) as { id: string }).id)) as {
      status: string
      input: { bytes: number }
      result: { files: { bytes: number }[] }
    }
    expect(job.status).toBe('succeeded')
    const expected = job.input.bytes + job.result.files.reduce((sum, file) => sum + file.bytes, 0)
    await expect
      .poll(async () => ((await (await bob.request('/v1/me')).json()) as Me).usage.stored_bytes)
      .toBe(expected)
  })

  it('answers a PUT once its bytes count: Me and the next PUT see them, however late the read models are', async () => {
    const dee = await service.account({ login: 'dee', credits: 100 })
    const upload = async () => {
      const created = await dee.request('/v1/uploads', { method: 'POST', json: { filename: 'model.obj' } })
      return ((await created.json()) as { url: string }).url
    }
    const [first, second] = [await upload(), await upload()]
    // Every read-model commit lands 300 ms late from here on (in order, as before).
    const commit = SqliteReadStore.prototype.putGuardedWithCounter
    const late = vi
      .spyOn(SqliteReadStore.prototype, 'putGuardedWithCounter')
      .mockImplementation(async function (this: SqliteReadStore, ...args) {
        await delay(300)
        return commit.apply(this, args)
      })
    try {
      expect((await put(first, 7000)).status).toBe(200)
      const me = (await (await dee.request('/v1/me')).json()) as Me
      expect(me.usage).toMatchObject({ pending_uploads: 1, stored_bytes: 7000 })
      // The cap counts the first PUT's bytes: 7,000 + 4,000 is over 10,000.
      expect((await put(second, 4000)).status).toBe(413)
    } finally {
      late.mockRestore()
    }
  })

  it('refuses a raw-body or URL job input that cannot fit, before a byte of it is stored', async () => {
    const cy = await service.account({ login: 'cy', credits: 100 })
    const big = await cy.request('/v1/tools/extract_pdf/jobs?filename=a.pdf', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(12_000, 0x20),
    })
    expect(big.status).toBe(413)
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('too_large')
    expect(((await (await cy.request('/v1/me')).json()) as Me).usage.stored_bytes).toBe(0)
  })
})
