// One kept-alive connection carrying several API keys in turn: the server remembers the last key's
// hash per connection, and must still answer each request as the key it carries, and refuse a
// revoked key on the very next request of the same connection.
import { Agent, request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, revokeApiKey } from '../../app/accounts.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

let service: TestService
let alice: TestAccount
let bob: TestAccount
// One socket for every request of this file.
const agent = new Agent({ keepAlive: true, maxSockets: 1 })

beforeAll(async () => {
  service = await startTestService({}, { consumeJobs: false })
  alice = await service.account({ login: 'alice' })
  bob = await service.account({ login: 'bob' })
})

afterAll(async () => {
  agent.destroy()
  await service.close()
})

/** GET /v1/me on the shared connection: the status, the account answered, and whether the socket was reused. */
function me(authorization: string): Promise<{ status: number; id: string | null; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${service.baseUrl}/v1/me`, { agent, headers: { authorization } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          id: res.statusCode === 200 ? (JSON.parse(body) as { id: string }).id : null,
          reused: req.reusedSocket,
        }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

describe('API keys on a kept-alive connection', () => {
  it('answers each request as the key it carries, and refuses a revoked key on the next request', async () => {
    const extra = await createApiKey(service.services.ctx, alice.accountId, 'extra')
    await service.services.waitForPosition(extra.position)
    expect(await me(`Bearer ${alice.apiKey}`)).toEqual({ status: 200, id: alice.accountId, reused: false })
    expect(await me(`Bearer ${alice.apiKey}`)).toEqual({ status: 200, id: alice.accountId, reused: true })
    expect(await me(`Bearer ${bob.apiKey}`)).toEqual({ status: 200, id: bob.accountId, reused: true })
    expect(await me(`Bearer ${extra.key}`)).toEqual({ status: 200, id: alice.accountId, reused: true })
    expect(await me(`Bearer ${extra.key}x`)).toMatchObject({ status: 401, reused: true })
    expect(await me(`Bearer ${extra.key}`)).toMatchObject({ status: 200, reused: true })

    const revoked = await revokeApiKey(service.services.ctx, alice.accountId, extra.id)
    await service.services.waitForPosition(revoked.position)
    expect(await me(`Bearer ${extra.key}`)).toMatchObject({ status: 401, reused: true })
    expect(await me(`Bearer ${alice.apiKey}`)).toEqual({ status: 200, id: alice.accountId, reused: true })
  })
})
