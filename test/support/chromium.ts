// Debian's Chromium for the browser tests, driven by playwright-core. The flags keep it off the
// network this machine does not reach (background updates, sync, QUIC) and let it run as root.
import { type Browser, chromium, type Page } from 'playwright-core'

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })

/** Page errors and Content-Security-Policy violations (only console errors otherwise) as they happen. */
export function pageProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      problems.push(message.text())
  })
  return problems
}
