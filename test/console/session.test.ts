// Console sessions over HTTP: a console token opens a server-side session held in an HttpOnly,
// SameSite=Lax cookie; tRPC accepts the cookie; cookie-authenticated POSTs from another origin are
// refused; sign-out, idle and absolute expiry end the session; console tokens expire and are revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { safeReturnTo } from '../../api/console/session.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

let service: TestService
let ada: TestAccount
let clockOffset = 0

beforeAll(async () => {
  service = await startTestService({}, { plugins: [registerConsole], consumeJobs: false })
  const realNow = service.services.ctx.now
  service.services.ctx.now = () => realNow() + clockOffset
  ada = await service.account({ credits: 40, login: 'ada' })
})
afterAll(() => service?.close())

const origin = () => new URL(service.baseUrl).origin

async function signIn(token: string, returnTo?: string) {
  const response = await fetch(`${service.baseUrl}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin() },
    body: JSON.stringify({ token, return_to: returnTo }),
  })
  const setCookie = response.headers.get('set-cookie') ?? ''
  return { response, setCookie, cookie: setCookie.split(';')[0]! }
}

const me = (cookie: string) => fetch(`${service.baseUrl}/internal/trpc/me`, { headers: { cookie } })

const createKey = (cookie: string, from: string | null) =>
  fetch(`${service.baseUrl}/internal/trpc/keys.create`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', ...(from ? { origin: from } : {}) },
    body: JSON.stringify({ name: 'from-cookie' }),
  })

describe('console sessions', () => {
  it('a console token opens a cookie session that tRPC accepts', async () => {
    const { response, setCookie, cookie } = await signIn(ada.consoleToken, '/console/oauth/consent?x=1')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ return_to: '/console/oauth/consent?x=1' })
    expect(setCookie).toMatch(/^kiln_session=kiln_ss_[0-9A-Za-z]{43}; /)
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Lax')
    expect(setCookie).toContain('Path=/')
    // Plain-http loopback: no Secure flag (browsers would drop the cookie).
    expect(setCookie).not.toContain('Secure')
    const answer = await me(cookie)
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as { result: { data: { login: string } } }).result.data.login).toBe('ada')
    expect((await me('kiln_session=kiln_ss_forged')).status).toBe(401)
  })

  it('refuses API keys and unknown tokens at sign-in', async () => {
    expect((await signIn(ada.apiKey)).response.status).toBe(403)
    const unknown = await signIn(`kiln_cs_${'a'.repeat(43)}`)
    expect(unknown.response.status).toBe(401)
    expect(unknown.setCookie).toBe('')
  })

  it('refuses cookie-authenticated mutations from another origin or without one', async () => {
    const { cookie } = await signIn(ada.consoleToken)
    expect((await createKey(cookie, 'https://evil.example')).status).toBe(403)
    expect((await createKey(cookie, null)).status).toBe(403)
    expect((await createKey(cookie, origin())).status).toBe(200)
    const signOut = await fetch(`${service.baseUrl}/console/sign-out`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(signOut.status).toBe(403)
    expect((await me(cookie)).status).toBe(200)
  })

  it('sign-out ends the session on the server', async () => {
    const { cookie } = await signIn(ada.consoleToken)
    const out = await fetch(`${service.baseUrl}/console/sign-out`, {
      method: 'POST',
      headers: { cookie, origin: origin(), 'content-type': 'application/json' },
      body: '{}',
    })
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
    expect((await me(cookie)).status).toBe(401)
  })

  it('a session ends after the idle time and after the absolute time', async () => {
    const { idleMs, absoluteMs } = service.services.ctx.config.consoleSession
    const idle = (await signIn(ada.consoleToken)).cookie
    clockOffset += idleMs - 1000
    expect((await me(idle)).status).toBe(200)
    clockOffset += idleMs + 1000
    expect((await me(idle)).status).toBe(401)

    const busy = (await signIn(ada.consoleToken)).cookie
    const step = Math.floor(idleMs / 2)
    for (let elapsed = 0; elapsed + step < absoluteMs; elapsed += step) {
      clockOffset += step
      expect((await me(busy)).status).toBe(200)
    }
    clockOffset += step
    expect((await me(busy)).status).toBe(401)
  })

  it('console tokens expire, record their last use and can be revoked from the console', async () => {
    const { cookie } = await signIn(ada.consoleToken)
    const list = await (
      await fetch(`${service.baseUrl}/internal/trpc/consoleTokens.list`, { headers: { cookie } })
    ).json()
    const [token] = (list as { result: { data: { id: string; expires_at: string; last_used_at: string }[] } })
      .result.data
    expect(token!.expires_at).not.toBeNull()
    expect(token!.last_used_at).not.toBeNull()
    const revoke = await fetch(`${service.baseUrl}/internal/trpc/consoleTokens.revoke`, {
      method: 'POST',
      headers: { cookie, origin: origin(), 'content-type': 'application/json' },
      body: JSON.stringify({ id: token!.id }),
    })
    expect(revoke.status).toBe(200)
    expect((await signIn(ada.consoleToken)).response.status).toBe(401)
    // The session that token opened ends with it.
    expect((await me(cookie)).status).toBe(401)

    const bob = await service.account({ login: 'bob' })
    clockOffset += service.services.ctx.config.consoleTokenValidMs
    expect((await signIn(bob.consoleToken)).response.status).toBe(401)
    const bearer = await fetch(`${service.baseUrl}/internal/trpc/me`, {
      headers: { authorization: `Bearer ${bob.consoleToken}` },
    })
    expect(bearer.status).toBe(401)
  })

  it('return_to is a path on this origin only', () => {
    expect(safeReturnTo('/console/oauth/consent?a=b')).toBe('/console/oauth/consent?a=b')
    for (const bad of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example',
      'javascript:x',
      '/a\nb',
      3,
    ])
      expect(safeReturnTo(bad)).toBe('/console')
  })
})
