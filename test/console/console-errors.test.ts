// The console's failures in the spec's terms (issue 20 items 15 and 16): a missing vendor module is a
// 404, a tRPC domain error carries its HTTP status and code, and an unexpected failure shows the
// browser a generic message with the request id, never the thrown text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { trpcCodes } from '../../api/console/router.ts'
import { errorCatalog } from '../../domain/errors.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

describe('tRPC codes', () => {
  it('has one for every status a request error can have', () => {
    // 500 is internal, and 507 is only ever a job's error, never a request's.
    const statuses = new Set(Object.values(errorCatalog).map((entry) => entry.status))
    for (const status of statuses)
      if (status !== 500 && status !== 507) expect(trpcCodes[status], `status ${status}`).toBeDefined()
  })
})

describe('console errors', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({}, { plugins: [registerConsole] })
    ann = await service.account({ login: 'ann' })
  })
  afterAll(() => service?.close())

  it.each([
    '/console/vendor/trpc-client/missing.mjs',
    '/console/vendor/trpc-client/deeper/missing.mjs',
    '/console/vendor/trpc-client/%00.mjs',
  ])('answers a missing vendor module %s with 404 not_found', async (path) => {
    const response = await fetch(`${service.baseUrl}${path}`)
    expect(response.status).toBe(404)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found')
  })

  it('maps a domain error (revoking an unknown key) to 404 with its code', async () => {
    const response = await ann.request('/internal/trpc/keys.revoke', {
      method: 'POST',
      json: { id: 'key_doesnotexist0000000' },
      token: ann.consoleToken,
    })
    expect(response.status).toBe(404)
    const body = (await response.json()) as { error: { data: { appCode: string; httpStatus: number } } }
    expect(body.error.data.appCode).toBe('not_found')
    expect(body.error.data.httpStatus).toBe(404)
  })

  it('shows an unexpected failure as internal, with the request id and without its text', async () => {
    // The read store failing under the console's `me` query: a failure no business rule describes.
    const models = service.services.models
    const original = models.collection.bind(models)
    models.collection = async () => {
      throw new Error("ENOENT: no such file or directory, open '/var/lib/kiln/data/read.sqlite'")
    }
    try {
      const response = await ann.request('/internal/trpc/me', { token: ann.consoleToken })
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(text).not.toMatch(/ENOENT|\/var\/lib|read\.sqlite/)
      const body = JSON.parse(text) as { error: { message: string; data: { appCode: string } } }
      expect(body.error.data.appCode).toBe('internal')
      expect(body.error.message).toContain(response.headers.get('request-id')!)
    } finally {
      models.collection = original
    }
  })
})
