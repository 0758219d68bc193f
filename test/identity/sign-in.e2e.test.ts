// People signing up in headless Chromium (Debian's package, driven by playwright-core): once with a
// passkey held by Chromium's DevTools virtual authenticator, once through a real OpenID provider
// (oidc-provider on a loopback port). Each signs up, lands in the console with the signup credits,
// creates an API key, signs out, and signs in again to the same account. Screenshots go to
// test-artifacts/.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { chromiumPath, launchChromium, pageProblems } from '../support/chromium.ts'
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestService } from '../support/service.ts'

const available = peerReady(
  'sign-in',
  !existsSync(chromiumPath) && `no Chromium at ${chromiumPath} (apt-get install chromium)`,
)
const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts')

let browser: Browser
beforeAll(async () => {
  if (!available) return
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
})

/** Chromium's DevTools virtual authenticator: a platform passkey store that always consents. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
}

const accountIdOf = (page: Page) =>
  page.evaluate(async () => {
    const answer = (await (await fetch('/internal/trpc/me')).json()) as { result: { data: { id: string } } }
    return answer.result.data.id
  })

/** Creates an API key in the console and checks it works on /v1/me for the same account. */
async function createKey(page: Page, baseUrl: string, accountId: string): Promise<void> {
  await page.fill('#new-key-name', 'laptop')
  await page.click('#create-key')
  await expect.poll(() => page.textContent('#new-key-secret')).toMatch(/^kiln_sk_[0-9A-Za-z]{43}$/)
  const key = (await page.textContent('#new-key-secret'))!
  const me = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${key}` } })
  expect(me.status).toBe(200)
  expect(((await me.json()) as { id: string }).id).toBe(accountId)
}

async function signOut(page: Page): Promise<void> {
  await page.click('#sign-out')
  await expect.poll(() => page.isVisible('#signin-panel')).toBe(true)
  expect(await page.isVisible('#app')).toBe(false)
  expect(await page.evaluate(async () => (await fetch('/internal/trpc/me')).status)).toBe(401)
}

describe.skipIf(!available)('passkey sign-up and sign-in', () => {
  let service: TestService

  beforeAll(async () => {
    service = await startTestService({}, { plugins: [registerConsole], consumeJobs: false })
    // WebAuthn takes a domain as the relying party, not an IP address: the browser uses localhost.
    service.services.ctx.config.publicUrl = service.baseUrl.replace('127.0.0.1', 'localhost')
  })
  afterAll(() => service?.close())

  it('signs up with a passkey, gets the signup credits, creates a key, signs out and in again', async () => {
    const baseUrl = service.services.ctx.config.publicUrl
    const page = await browser.newPage({ viewport: { width: 1100, height: 1300 } })
    const problems = pageProblems(page)
    await addVirtualAuthenticator(page)

    await page.goto(`${baseUrl}/console`)
    await page.fill('#signup-login', 'ada')
    await page.click('#passkey-sign-up')
    await expect
      .poll(() => page.textContent('#balance'), { timeout: 15_000 })
      .toBe(String(service.services.ctx.config.signupCredits))
    expect(await page.textContent('#who')).toContain('ada')
    // The list is read back after the message shows: waited for, like the keys' list.
    await expect.poll(() => page.locator('#passkeys tbody tr').count()).toBe(1)
    const accountId = await accountIdOf(page)
    await createKey(page, baseUrl, accountId)
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, 'sign-up-passkey.png'), fullPage: true })

    await signOut(page)
    await page.click('#passkey-sign-in')
    await expect.poll(() => page.isVisible('#app'), { timeout: 15_000 }).toBe(true)
    expect(await accountIdOf(page)).toBe(accountId)
    await expect.poll(() => page.locator('#keys tbody tr', { hasText: 'laptop' }).count()).toBe(1)
    expect(problems).toEqual([])
    await page.close()
  })
})

describe.skipIf(!available)('OpenID provider sign-up and sign-in', () => {
  let service: TestService
  let idp: TestOidcProvider

  beforeAll(async () => {
    idp = await startOidcProvider({
      grace: { email: 'grace@example.com', email_verified: true, preferred_username: 'grace' },
    })
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
        ],
      },
      { plugins: [registerConsole], consumeJobs: false },
    )
    // localhost, not 127.0.0.1: the person also adds a passkey, and WebAuthn needs a domain.
    service.services.ctx.config.publicUrl = service.baseUrl.replace('127.0.0.1', 'localhost')
    idp.allowRedirect(`${service.services.ctx.config.publicUrl}/console/auth/oidc/test/callback`)
  })
  afterAll(async () => {
    await service?.close()
    await idp?.close()
  })

  /** At the provider: log in as grace when it asks (a second visit may go straight back). */
  async function atProvider(page: Page): Promise<void> {
    await page.waitForURL((url) => url.origin === idp.issuer || url.pathname === '/console')
    if (new URL(page.url()).origin === idp.issuer) {
      await page.fill('#user', 'grace')
      await page.click('#log-in')
    }
    await page.waitForURL((url) => url.pathname === '/console')
  }

  it('signs up through the provider, gets the signup credits, creates a key, signs out and in again; adds a passkey that signs in to the same account', async () => {
    const baseUrl = service.services.ctx.config.publicUrl
    const page = await browser.newPage({ viewport: { width: 1100, height: 1300 } })
    const problems = pageProblems(page)
    await addVirtualAuthenticator(page)
    await page.goto(`${baseUrl}/console`)
    await page.click('#provider-sign-up a[data-provider="oidc/test"]')
    await atProvider(page)
    await expect
      .poll(() => page.textContent('#balance'), { timeout: 15_000 })
      .toBe(String(service.services.ctx.config.signupCredits))
    expect(await page.textContent('#who')).toContain('grace · grace@example.com')
    const accountId = await accountIdOf(page)
    await createKey(page, baseUrl, accountId)
    await page.screenshot({ path: join(artifacts, 'sign-up-oidc.png'), fullPage: true })

    await signOut(page)
    await page.click('#provider-sign-in a[data-provider="oidc/test"]')
    await atProvider(page)
    await expect.poll(() => page.isVisible('#app'), { timeout: 15_000 }).toBe(true)
    expect(await accountIdOf(page)).toBe(accountId)
    await expect.poll(() => page.locator('#keys tbody tr', { hasText: 'laptop' }).count()).toBe(1)

    // Linking: a passkey added in the console signs in to this account from now on.
    await page.click('#add-passkey')
    await expect.poll(() => page.textContent('#methods-message'), { timeout: 15_000 }).toBe('Passkey added.')
    // The list is read back after the message shows: waited for, like the keys' list.
    await expect.poll(() => page.locator('#passkeys tbody tr').count()).toBe(1)
    await signOut(page)
    await page.click('#passkey-sign-in')
    await expect.poll(() => page.isVisible('#app'), { timeout: 15_000 }).toBe(true)
    expect(await accountIdOf(page)).toBe(accountId)
    expect(problems).toEqual([])
    await page.close()
  })
})
