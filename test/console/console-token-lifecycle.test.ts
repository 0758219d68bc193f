// Issue 20 item 9, checked where session.test.ts and admin-cli.test.ts do not reach: the console
// token as a Bearer credential on the console-only REST endpoints. It works until the instant it
// expires (CONSOLE_TOKEN_DAYS after issue), stops at once when revoked, records each use as API keys
// do, and the decider keeps revocation final.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revokeConsoleToken } from '../../app/accounts.ts'
import { accountDecider } from '../../app/deciders.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { listConsoleTokens } from '../../projections/keys/queries.ts'
import { accountId, history, iso, open, t0 } from '../domain/account-fixtures.ts'
import { specFor } from '../support/given-when-then.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService
let clockOffset = 0

beforeAll(async () => {
  service = await startTestService({}, { consumeJobs: false })
  const realNow = service.services.ctx.now
  service.services.ctx.now = () => realNow() + clockOffset
})
afterAll(() => service?.close())

const keysWith = (token: string) =>
  fetch(`${service.baseUrl}/v1/keys`, { headers: { authorization: `Bearer ${token}` } })

const tokensOf = (accountId: string) => listConsoleTokens(service.services.models, accountId)

describe('console tokens as Bearer credentials', () => {
  it('work until the instant they expire, recording each use', async () => {
    clockOffset = 0
    const ada = await service.account({ login: 'token-ada' })
    const [issued] = await tokensOf(ada.accountId)
    expect(issued?.expires_at).toEqual(expect.any(String))
    const expiresAt = Date.parse(issued!.expires_at!)
    expect(expiresAt - Date.now()).toBeGreaterThan(service.services.ctx.config.consoleTokenValidMs - 60_000)

    expect((await keysWith(ada.consoleToken)).status).toBe(200)
    const firstUse = (await tokensOf(ada.accountId))[0]!.last_used_at
    expect(firstUse).not.toBeNull()
    clockOffset = expiresAt - Date.now() - 5_000
    expect((await keysWith(ada.consoleToken)).status).toBe(200)
    await expect
      .poll(async () => Date.parse((await tokensOf(ada.accountId))[0]!.last_used_at!))
      .toBeGreaterThan(Date.parse(firstUse!))

    clockOffset = expiresAt - Date.now() + 1
    const expired = await keysWith(ada.consoleToken)
    expect(expired.status).toBe(401)
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
  })

  it('stop at once when revoked, and an API key never reaches the console-only endpoints', async () => {
    clockOffset = 0
    const bo = await service.account({ login: 'token-bo' })
    expect((await keysWith(bo.consoleToken)).status).toBe(200)
    expect((await keysWith(bo.apiKey)).status).toBe(403)
    const [issued] = await tokensOf(bo.accountId)
    const revoked = await revokeConsoleToken(service.services.ctx, bo.accountId, issued!.id)
    await service.services.waitForPosition(revoked.position)
    expect((await keysWith(bo.consoleToken)).status).toBe(401)
  })
})

describe('console tokens in the account', () => {
  const given = specFor(accountDecider)
  const issue = (tokenId: string): AccountCommand => ({
    type: 'IssueConsoleToken',
    data: {
      tokenId,
      prefix: 'kiln_cs_abcd',
      secretHash: `h_${tokenId}`,
      expiresAt: t0 + 90 * 86_400_000,
      now: t0,
    },
  })
  const revoke = (tokenId: string): AccountCommand => ({
    type: 'RevokeConsoleToken',
    data: { tokenId, now: t0 },
  })

  it('a token is issued with its expiry; revoking it is final and happens once; an unknown one is not found', () => {
    given(history([open()]))
      .when(issue('tok_1'))
      .then([
        {
          type: 'ConsoleTokenIssued',
          data: {
            accountId,
            tokenId: 'tok_1',
            prefix: 'kiln_cs_abcd',
            secretHash: 'h_tok_1',
            expiresAt: iso(t0 + 90 * 86_400_000),
            at: iso(t0),
          },
        },
      ])
    const revoked = history([open(), issue('tok_1'), revoke('tok_1')])
    given(revoked).when(revoke('tok_1')).thenNothing()
    given(revoked).when(issue('tok_1')).thenNothing()
    given(history([open()]))
      .when(revoke('tok_none'))
      .thenError('not_found')
  })
})
