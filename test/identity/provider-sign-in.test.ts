// Signing up and in with an OpenID provider (oidc-provider, a real one, on a loopback port) and with
// GitHub (a double speaking GitHub's wire format), over HTTP as a browser would: the first sign-in
// opens an account with the signup grant, later ones find it by the provider's subject, never by
// e-mail; forged state, a nonce for another sign-in and unverified e-mail are refused or ignored;
// SIGNUP=invite and closed, and the per-address sign-up limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { accountDecider } from '../../app/deciders.ts'
import { readState } from '../../app/handle-command.ts'
import { createInvitation } from '../../app/identity/invitations.ts'
import { accountStream } from '../../domain/account/events.ts'
import { CookieJar } from '../support/cookie-jar.ts'
import { type GitHubDouble, startGitHubDouble } from '../support/github-double.ts'
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService
let idp: TestOidcProvider
let github: GitHubDouble

const users = {
  alice: { email: 'alice@example.com', email_verified: true, preferred_username: 'alice' },
  // Another person at the provider who claims alice's address: must never get alice's account.
  mallory: { email: 'alice@example.com', email_verified: true, preferred_username: 'mallory' },
  eve: { email: 'eve@example.com', email_verified: false, preferred_username: 'eve' },
  carol: { email: 'carol@example.com', email_verified: true, preferred_username: 'carol' },
  dave: { preferred_username: 'dave' },
  frank: { preferred_username: 'frank' },
}

beforeAll(async () => {
  idp = await startOidcProvider(users)
  github = await startGitHubDouble()
  service = await startTestService(
    {
      oidcProviders: [
        {
          id: 'test',
          name: 'Test ID',
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
        },
        // Nothing listens on port 9 here: a provider that cannot be reached.
        { id: 'down', name: 'Down ID', issuer: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y' },
      ],
      github: {
        clientId: github.clientId,
        clientSecret: github.clientSecret,
        webUrl: github.url,
        apiUrl: github.url,
      },
      signupRateLimit: { perAddress: 1000, windowMs: 3_600_000 },
      // The tests name their client's address in X-Forwarded-For, as a proxy on loopback would.
      trustProxy: ['loopback'],
    },
    { plugins: [registerConsole], consumeJobs: false },
  )
  idp.allowRedirect(`${service.baseUrl}/console/auth/oidc/test/callback`)
})
afterAll(async () => {
  await service?.close()
  await idp?.close()
  await github?.close()
})

const me = async (jar: CookieJar) => {
  const response = await jar.fetch(`${service.baseUrl}/internal/trpc/me`)
  if (response.status !== 200) return null
  return (
    (await response.json()) as {
      result: { data: { id: string; login: string; email: string | null; credits: { balance: number } } }
    }
  ).result.data
}

/** Starts at kiln, logs in at the provider as `user`, and stops at kiln's callback URL (not yet followed). */
async function throughProvider(jar: CookieJar, user: string, query = '', tamper?: (authorize: URL) => void) {
  const start = await jar.fetch(`${service.baseUrl}/console/auth/oidc/test/start${query}`)
  expect(start.status).toBe(302)
  const authorize = new URL(start.headers.get('location')!)
  expect(authorize.origin).toBe(idp.issuer)
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
  expect(authorize.searchParams.get('nonce')).toBeTruthy()
  tamper?.(authorize)
  const { response: loginPage, url: interaction } = await jar.follow(authorize.toString())
  expect(await loginPage.text()).toContain('Test provider sign-in')
  let response = await jar.fetch(`${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user }),
  })
  let location = new URL(response.headers.get('location')!, interaction).toString()
  while (!location.startsWith(service.baseUrl)) {
    response = await jar.fetch(location)
    location = new URL(response.headers.get('location')!, location).toString()
  }
  return location
}

async function oidcSignIn(user: string, query = '') {
  const jar = new CookieJar()
  const callback = await throughProvider(jar, user, query)
  const done = await jar.fetch(callback)
  return { jar, done }
}

describe('OpenID Connect sign-in', () => {
  it('the first sign-in opens an account with the signup grant; the next finds the same account', async () => {
    const first = await oidcSignIn('alice')
    expect(first.done.status).toBe(302)
    expect(first.done.headers.get('location')).toBe('/console')
    const account = (await me(first.jar))!
    expect(account).toMatchObject({ login: 'alice', email: 'alice@example.com' })
    expect(account.credits.balance).toBe(service.services.ctx.config.signupCredits)

    const again = await oidcSignIn('alice', '?return_to=/console/oauth/consent%3Fx%3D1')
    expect(again.done.headers.get('location')).toBe('/console/oauth/consent?x=1')
    expect((await me(again.jar))!.id).toBe(account.id)
  })

  it('a second provider account with the same e-mail gets its own account, not the first one', async () => {
    const alice = (await me((await oidcSignIn('alice')).jar))!
    const mallory = (await me((await oidcSignIn('mallory')).jar))!
    expect(mallory.id).not.toBe(alice.id)
    expect(mallory.login).toBe('mallory')
  })

  it('an e-mail the provider has not verified is not the account e-mail', async () => {
    const eve = (await me((await oidcSignIn('eve')).jar))!
    expect(eve.login).toBe('eve')
    expect(eve.email).toBeNull()
  })

  it('refuses a callback whose state was not issued to this browser', async () => {
    const jar = new CookieJar()
    const callback = new URL(await throughProvider(jar, 'alice'))
    callback.searchParams.set('state', 'forged-state-value')
    const response = await jar.fetch(callback.toString())
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(/state mismatch/)
    expect(await me(jar)).toBeNull()
  })

  it('refuses an ID token whose nonce belongs to another sign-in', async () => {
    const jar = new CookieJar()
    const callback = await throughProvider(jar, 'alice', '', (authorize) =>
      authorize.searchParams.set('nonce', 'nonce-of-another-sign-in'),
    )
    const response = await jar.fetch(callback)
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(/nonce mismatch/)
    expect(await me(jar)).toBeNull()
  })

  it('a provider that cannot be reached gets a clear page, and no flow', async () => {
    const jar = new CookieJar()
    const response = await jar.fetch(`${service.baseUrl}/console/auth/oidc/down/start`)
    expect(response.status).toBe(502)
    expect(await response.text()).toMatch(/Down ID could not be reached/)
    expect(jar.cookies.size).toBe(0)
  })

  it('a callback replayed after use, or from another browser, is refused', async () => {
    const jar = new CookieJar()
    const callback = await throughProvider(jar, 'alice')
    const stranger = new CookieJar()
    expect((await stranger.fetch(callback)).status).toBe(400)
    expect(await me(stranger)).toBeNull()
  })
})

describe('GitHub sign-in', () => {
  const octocat = {
    id: 583231,
    login: 'octocat',
    emails: [
      { email: 'octocat@example.com', primary: true, verified: true },
      { email: 'old@example.com', primary: false, verified: true },
    ],
  }

  async function gitHubSignIn(query = '') {
    const jar = new CookieJar()
    const start = await jar.fetch(`${service.baseUrl}/console/auth/github/start${query}`)
    expect(start.status).toBe(302)
    const authorize = new URL(start.headers.get('location')!)
    expect(authorize.origin + authorize.pathname).toBe(`${github.url}/login/oauth/authorize`)
    const back = await jar.fetch(authorize.toString())
    return { jar, callback: back.headers.get('location')! }
  }

  it('Me.login is the GitHub login and Me.email the verified primary address; a renamed login keeps the account', async () => {
    github.signInAs(octocat)
    const first = await gitHubSignIn()
    expect((await first.jar.fetch(first.callback)).status).toBe(302)
    const account = (await me(first.jar))!
    expect(account).toMatchObject({ login: 'octocat', email: 'octocat@example.com' })

    // Same GitHub user id under a new login, answered form-encoded this time: the same account.
    github.signInAs({ ...octocat, login: 'octo-renamed' })
    github.formAnswers = true
    try {
      const again = await gitHubSignIn()
      expect((await again.jar.fetch(again.callback)).status).toBe(302)
      expect((await me(again.jar))!.id).toBe(account.id)
    } finally {
      github.formAnswers = false
    }
  })

  it('an unverified primary address is not kept; a forged state is refused', async () => {
    github.signInAs({
      id: 9001,
      login: 'unverified',
      emails: [{ email: 'u@example.com', primary: true, verified: false }],
    })
    const signIn = await gitHubSignIn()
    const forged = new URL(signIn.callback)
    forged.searchParams.set('state', 'forged')
    const refused = await signIn.jar.fetch(forged.toString())
    expect(refused.status).toBe(400)
    expect(await refused.text()).toMatch(/state mismatch/)
    expect(await me(signIn.jar)).toBeNull()

    const fresh = await gitHubSignIn()
    expect((await fresh.jar.fetch(fresh.callback)).status).toBe(302)
    expect((await me(fresh.jar))!).toMatchObject({ login: 'unverified', email: null })
  })
})

describe('linking another sign-in method', () => {
  it('a signed-in person links GitHub; GitHub alone then signs in to that account; another account cannot take it', async () => {
    const { jar } = await oidcSignIn('alice')
    const alice = (await me(jar))!
    github.signInAs({ id: 777, login: 'alice-gh', emails: [] })
    const start = await jar.fetch(`${service.baseUrl}/console/auth/github/start?return_to=/console`)
    const back = await jar.fetch(start.headers.get('location')!)
    const linked = await jar.fetch(back.headers.get('location')!)
    expect(linked.status).toBe(302)
    expect((await me(jar))!.id).toBe(alice.id)
    const { state } = await readState(service.services.ctx.store, accountStream(alice.id), accountDecider)
    expect(state.identities.has('github 777')).toBe(true)

    const viaGitHub = new CookieJar()
    const again = await viaGitHub.fetch(`${service.baseUrl}/console/auth/github/start`)
    const callback = (await viaGitHub.fetch(again.headers.get('location')!)).headers.get('location')!
    expect((await viaGitHub.fetch(callback)).status).toBe(302)
    expect((await me(viaGitHub))!.id).toBe(alice.id)

    const { jar: malloryJar } = await oidcSignIn('mallory')
    const steal = await malloryJar.fetch(`${service.baseUrl}/console/auth/github/start`)
    const stealBack = await malloryJar.fetch(steal.headers.get('location')!)
    const refused = await malloryJar.fetch(stealBack.headers.get('location')!)
    expect(refused.status).toBe(409)
    expect(await refused.text()).toMatch(/already belongs to another account/)
  })
})

describe('who may sign up', () => {
  it('invite-only refuses without a code, opens with one, and the code works once', async () => {
    const config = service.services.ctx.config
    config.signup = 'invite'
    try {
      const refused = await oidcSignIn('carol')
      expect(refused.done.status).toBe(403)
      expect(await refused.done.text()).toMatch(/by invitation/)
      expect(await me(refused.jar)).toBeNull()

      const { code } = await createInvitation(service.services.ctx, 'test operator')
      const invited = await oidcSignIn('carol', `?invitation=${code}`)
      expect(invited.done.status).toBe(302)
      expect((await me(invited.jar))!.login).toBe('carol')

      const reused = await oidcSignIn('dave', `?invitation=${code}`)
      expect(reused.done.status).toBe(403)
      expect(await reused.done.text()).toMatch(/already used/)

      // An existing account signs in without a code.
      expect((await oidcSignIn('alice')).done.status).toBe(302)
    } finally {
      config.signup = 'open'
    }
  })

  it('closed refuses new accounts and still signs existing ones in', async () => {
    const config = service.services.ctx.config
    config.signup = 'closed'
    try {
      const refused = await oidcSignIn('dave')
      expect(refused.done.status).toBe(403)
      expect(await refused.done.text()).toMatch(/closed/)
      expect(await me(refused.jar)).toBeNull()
      expect((await me((await oidcSignIn('alice')).jar))!.login).toBe('alice')
    } finally {
      config.signup = 'open'
    }
  })

  it('sign-ups per client address hit 429 with Retry-After', async () => {
    const config = service.services.ctx.config
    const before = config.signupRateLimit
    // Counted per address: this test's address has not signed up before in this window.
    const address = { 'x-forwarded-for': '203.0.113.7' }
    config.signupRateLimit = { perAddress: 1, windowMs: 3_600_000 }
    try {
      const jar = new CookieJar()
      const first = await throughProvider(jar, 'dave')
      expect((await jar.fetch(first, { headers: address })).status).toBe(302)
      const second = new CookieJar()
      const callback = await throughProvider(second, 'frank')
      const limited = await second.fetch(callback, { headers: address })
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await limited.text()).toMatch(/Too many new accounts from this address/)
      expect(await me(second)).toBeNull()
      // Signing in to an existing account is not a sign-up.
      const alice = new CookieJar()
      expect((await alice.fetch(await throughProvider(alice, 'alice'), { headers: address })).status).toBe(
        302,
      )
    } finally {
      config.signupRateLimit = before
    }
  })
})
