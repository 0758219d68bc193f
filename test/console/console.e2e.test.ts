// The console page in headless Chromium (Debian's package, driven by playwright-core): sign in with a
// console token, create a key, see it listed, revoke it, see the balance. A screenshot is saved to
// test-artifacts/console.png.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { chromiumPath, launchChromium, pageProblems } from '../support/chromium.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

const available = peerReady(
  'console',
  !existsSync(chromiumPath) && `no Chromium at ${chromiumPath} (apt-get install chromium)`,
)
const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts')

describe.skipIf(!available)('console page', () => {
  let service: TestService
  let grace: TestAccount
  let browser: Browser

  beforeAll(async () => {
    service = await startTestService({}, { plugins: [registerConsole] })
    grace = await service.account({ credits: 250, login: 'grace' })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await service?.close()
  })

  it('refuses an API key at sign-in', async () => {
    const page = await browser.newPage()
    await page.goto(`${service.baseUrl}/console`)
    await page.click('summary')
    await page.fill('#token', grace.apiKey)
    await page.click('#sign-in')
    await expect.poll(() => page.textContent('#signin-error')).toMatch(/console token/)
    await page.close()
  })

  it('signs in, shows the balance, creates a key, lists it, revokes it', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1200 } })
    // Page errors and CSP violations: the page must cause none.
    const problems = pageProblems(page)
    await page.goto(`${service.baseUrl}/console`)
    await page.click('summary')
    await page.fill('#token', grace.consoleToken)
    await page.click('#sign-in')
    await expect.poll(() => page.textContent('#balance')).toBe('250')
    expect(await page.locator('#lots tbody tr').count()).toBe(1)

    await page.fill('#new-key-name', 'laptop')
    await page.click('#create-key')
    await expect.poll(() => page.textContent('#new-key-secret')).toMatch(/^kiln_sk_[0-9A-Za-z]{43}$/)
    const secret = (await page.textContent('#new-key-secret'))!
    await expect.poll(() => page.locator('#keys tbody tr', { hasText: 'laptop' }).count()).toBe(1)
    expect((await grace.request('/v1/me', { token: secret })).status).toBe(200)

    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, 'console.png'), fullPage: true })

    await page.locator('#keys tbody tr', { hasText: 'laptop' }).locator('button').click()
    await expect.poll(() => page.locator('#keys tbody tr', { hasText: 'laptop' }).count()).toBe(0)
    expect((await grace.request('/v1/me', { token: secret })).status).toBe(401)
    expect(problems).toEqual([])
    await page.close()
  })
})

describe('console response headers', () => {
  it('sends a Content-Security-Policy that forbids framing, with nosniff and no referrer', async () => {
    const service = await startTestService({}, { plugins: [registerConsole] })
    try {
      for (const path of ['/console', '/console/console.js', '/console/vendor/trpc-client/index.mjs']) {
        const response = await fetch(`${service.baseUrl}${path}`)
        expect(response.status, path).toBe(200)
        const policy = response.headers.get('content-security-policy') ?? ''
        expect(policy).toContain("frame-ancestors 'none'")
        expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/)
        expect(policy).not.toContain('unsafe-inline')
        expect(response.headers.get('x-content-type-options')).toBe('nosniff')
        expect(response.headers.get('referrer-policy')).toBe('no-referrer')
      }
    } finally {
      await service.close()
    }
  })
})
