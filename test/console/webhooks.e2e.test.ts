// The console's webhook section in headless Chromium: add an endpoint (its secret shown once), see
// deliveries in its log, and see it marked disabled, with the reason, once it kept failing.
// A screenshot is saved to test-artifacts/console-webhooks.png.
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { chromiumPath, launchChromium, pageProblems } from '../support/chromium.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'

const available = existsSync(chromiumPath)
if (!available && process.env.CI) throw new Error(`no Chromium at ${chromiumPath}`)
const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts')

describe.skipIf(!available)('console webhooks', () => {
  let service: TestService
  let receiver: Receiver
  let ada: TestAccount
  let browser: Browser

  beforeAll(async () => {
    receiver = await startReceiver()
    service = await startTestService(
      {
        webhooks: {
          tickMs: 25,
          timeoutMs: 2000,
          disableAfterFailures: 2,
          retryScale: 0.002,
          loopbackCa: receiver.fixture.ca,
        },
      },
      { plugins: [registerConsole] },
    )
    ada = await service.account({ credits: 100, login: 'ada' })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await service?.close()
    await receiver?.close()
  })

  const runJob = () =>
    ada.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { idempotency_key: randomUUID() },
      headers: { prefer: 'wait=30' },
    })

  it('adds an endpoint, shows its secret once, its deliveries, and that it was disabled', async () => {
    const page = await browser.newPage()
    // Page errors and CSP violations: the page must cause none.
    const problems = pageProblems(page)
    await page.goto(`${service.baseUrl}/console`)
    // The console-token form is in the collapsed "Operators" section of the sign-in screen.
    await page.click('summary')
    await page.fill('#token', ada.consoleToken)
    await page.click('#sign-in')
    await expect.poll(() => page.textContent('#balance')).toBe('100')

    await page.fill('#new-webhook-url', 'http://example.com/hook')
    await page.click('#create-webhook')
    await expect.poll(() => page.locator('#webhooks tbody tr').count()).toBe(0)

    await page.fill('#new-webhook-url', receiver.url('/broken'))
    await page.click('#create-webhook')
    await expect.poll(() => page.textContent('#new-webhook-secret')).toMatch(/^whsec_/)
    await expect.poll(() => page.locator('#webhooks tbody tr').count()).toBe(1)
    expect(await page.textContent('#webhooks tbody tr')).toContain('Enabled')

    // One outcome, tried twice (the first retry comes at once here): two failures in a row disable it.
    await runJob()
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.textContent('#webhooks tbody tr')
        },
        { timeout: 15_000, interval: 300 },
      )
      .toMatch(/Disabled .*2 deliveries in a row failed.*HTTP 500/)
    await page.locator('#webhooks tbody tr button', { hasText: 'Deliveries' }).click()
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(1)
    expect(await page.textContent('#deliveries tbody')).toContain('500')
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, 'console-webhooks.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.close()
  })
})
