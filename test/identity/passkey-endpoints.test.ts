// The passkey endpoints without a browser: what they refuse. (Signing up and in with a real passkey
// is in sign-in.e2e.test.ts, with Chromium's virtual authenticator.)
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { createInvitation } from '../../app/identity/invitations.ts'
import { CookieJar } from '../support/cookie-jar.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService
beforeAll(async () => {
  service = await startTestService(
    // The limit test names its client's address in X-Forwarded-For, as a proxy on loopback would.
    { trustProxy: ['loopback'], addressRateLimit: { perSecond: 50, burst: 40 } },
    { plugins: [registerConsole], consumeJobs: false },
  )
})
afterAll(() => service?.close())

const post = (jar: CookieJar, path: string, body: unknown, origin = new URL(service.baseUrl).origin) =>
  jar.fetch(`${service.baseUrl}/console/auth/passkey/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify(body),
  })

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string } }).error

/** A well-formed answer whose signature cannot verify. */
const fakeAnswer = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'oA', authenticatorData: 'AA', signature: 'AA' },
  clientExtensionResults: {},
}

describe('passkey endpoints', () => {
  it('lists the sign-in methods this server offers', async () => {
    const methods = await (await fetch(`${service.baseUrl}/console/auth/methods`)).json()
    expect(methods).toEqual({ signup: 'open', passkey: true, github: false, oidc: [] })
  })

  it('gives registration options for PUBLIC_URL as the relying party, to the console origin only', async () => {
    const jar = new CookieJar()
    const options = await post(jar, 'register-options', { login: 'ada' })
    expect(options.status).toBe(200)
    const body = (await options.json()) as { challenge: string; rp: { id: string }; user: { name: string } }
    expect(body.rp.id).toBe('127.0.0.1')
    expect(body.user.name).toBe('ada')
    expect(body.challenge.length).toBeGreaterThan(20)
    expect(options.headers.get('set-cookie')).toMatch(/^kiln_sign_in=kiln_fl_.*HttpOnly.*SameSite=Lax/)
    expect(
      (await post(new CookieJar(), 'register-options', { login: 'ada' }, 'https://evil.example')).status,
    ).toBe(403)
    expect((await post(new CookieJar(), 'register-options', { login: '<script>' })).status).toBe(400)
  })

  it('refuses an answer that does not verify, and a flow used twice or never started', async () => {
    const jar = new CookieJar()
    await post(jar, 'register-options', { login: 'ada' })
    const bad = await post(jar, 'register', fakeAnswer)
    expect(bad.status).toBe(401)
    expect((await errorOf(bad)).message).toMatch(/could not be verified/)
    const replay = await post(jar, 'register', fakeAnswer)
    expect(replay.status).toBe(400)
    expect((await errorOf(replay)).message).toMatch(/expired or was already used/)
    expect((await post(new CookieJar(), 'authenticate', fakeAnswer)).status).toBe(400)
    expect((await post(new CookieJar(), 'register', { nonsense: true })).status).toBe(400)
  })

  it('refuses sign-in with a passkey that is not registered', async () => {
    const jar = new CookieJar()
    expect((await post(jar, 'authenticate-options', {})).status).toBe(200)
    const unknown = await post(jar, 'authenticate', fakeAnswer)
    expect(unknown.status).toBe(401)
    expect((await errorOf(unknown)).message).toMatch(/not registered/)
  })

  it('starting sign-ins spends a per-address token bucket (429 beyond the burst)', async () => {
    const { burst } = service.services.ctx.config.addressRateLimit
    const statuses: number[] = []
    // The clock stands still, so the bucket does not refill while the requests go out.
    const ctx = service.services.ctx
    const realNow = ctx.now
    const frozen = realNow()
    ctx.now = () => frozen
    onTestFinished(() => {
      ctx.now = realNow
    })
    for (let i = 0; i < burst + 5; i++)
      statuses.push(
        (
          await fetch(`${service.baseUrl}/console/auth/passkey/authenticate-options`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              origin: new URL(service.baseUrl).origin,
              'x-forwarded-for': '198.51.100.9',
            },
            body: '{}',
          })
        ).status,
      )
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(burst)
    expect(statuses.at(-1)).toBe(429)
  })

  it('follows SIGNUP: closed refuses, invite asks for a valid code', async () => {
    const config = service.services.ctx.config
    try {
      config.signup = 'closed'
      const closed = await post(new CookieJar(), 'register-options', { login: 'ada' })
      expect(closed.status).toBe(403)
      expect((await errorOf(closed)).message).toMatch(/closed/)
      config.signup = 'invite'
      const missing = await post(new CookieJar(), 'register-options', { login: 'ada' })
      expect(missing.status).toBe(403)
      expect((await errorOf(missing)).message).toMatch(/invitation/)
      const wrong = await post(new CookieJar(), 'register-options', {
        login: 'ada',
        invitation: 'kiln_iv_nope',
      })
      expect(wrong.status).toBe(403)
      const { code } = await createInvitation(service.services.ctx, 'test')
      expect(
        (await post(new CookieJar(), 'register-options', { login: 'ada', invitation: code })).status,
      ).toBe(200)
    } finally {
      config.signup = 'open'
    }
  })
})
