// What an MCP client application brings to the OAuth tests: the SDK's OAuthClientProvider kept in
// memory, a loopback redirect endpoint (RFC 8252) that records what the authorization server sent
// back, and a person in headless Chromium who signs in with a console token and answers the consent.
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname } from 'node:path'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Browser, Page } from 'playwright-core'

/** The loopback redirect endpoint: every request's query, in order. */
export interface RedirectEndpoint {
  url: string
  port: number
  received: URLSearchParams[]
  /** Resolves with the next redirect that arrives. */
  next(): Promise<URLSearchParams>
  close(): Promise<void>
}

export async function startRedirectEndpoint(): Promise<RedirectEndpoint> {
  const received: URLSearchParams[] = []
  let waiting: ((query: URLSearchParams) => void) | null = null
  const server: Server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams
    received.push(query)
    waiting?.(query)
    waiting = null
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/callback`,
    port,
    received,
    next: () => new Promise((resolve) => (waiting = resolve)),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** The SDK's client-side OAuth state, in memory, with the last authorization URL it was sent to. */
export class MemoryOAuthClient implements OAuthClientProvider {
  clientMetadataUrl?: string
  authorizationUrl: URL | null = null
  lastState: string | null = null
  #client: OAuthClientInformationMixed | undefined
  #tokens: OAuthTokens | undefined
  #verifier = ''
  readonly #metadata: OAuthClientMetadata

  constructor(
    redirectUrl: string,
    options: { clientMetadataUrl?: string; scope?: string; name?: string } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl
    this.#metadata = {
      client_name: options.name ?? 'Test Agent',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...(options.scope ? { scope: options.scope } : {}),
    } as OAuthClientMetadata
  }

  get redirectUrl() {
    return this.#metadata.redirect_uris[0]!
  }
  get clientMetadata() {
    return this.#metadata
  }
  state() {
    this.lastState = randomBytes(16).toString('base64url')
    return this.lastState
  }
  clientInformation() {
    return this.#client
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info
  }
  tokens() {
    return this.#tokens
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens
  }
  /**
   * The client's own check of what arrives at its redirect URI (the SDK leaves it to the app): the
   * state must be the one it sent, else the redirect is someone else's and its code is not used.
   */
  acceptRedirect(query: URLSearchParams): string {
    if (this.lastState === null || query.get('state') !== this.lastState)
      throw new Error('The redirect carries a state this client did not send; ignoring it.')
    const code = query.get('code')
    if (!code) throw new Error(`The authorization failed: ${query.get('error') ?? 'no code'}`)
    return code
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }
  codeVerifier() {
    return this.#verifier
  }
}

/** Signs in on the console's sign-in page when sent there; answers nothing else. */
export async function signInIfAsked(page: Page, consoleToken: string): Promise<void> {
  if (!new URL(page.url()).pathname.startsWith('/console/sign-in')) return
  // The console token form sits under "Operators" on the sign-in page.
  await page.click('summary')
  await page.fill('#token', consoleToken)
  await page.click('#sign-in')
  await page.waitForURL((url) => !url.pathname.startsWith('/console'))
}

/**
 * A person opens the authorization URL in a fresh browser, signs in with the console token, reads
 * the consent page and allows (or denies). Answers what the page showed and the redirect's query.
 */
export async function consent(
  browser: Browser,
  authorizationUrl: URL,
  consoleToken: string,
  redirect: RedirectEndpoint,
  { decision = 'allow', screenshot }: { decision?: 'allow' | 'deny'; screenshot?: string | undefined } = {},
): Promise<{
  clientName: string
  login: string
  redirectHost: string
  scopes: string[]
  query: URLSearchParams
}> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const arrived = redirect.next()
    await page.goto(authorizationUrl.href)
    await signInIfAsked(page, consoleToken)
    await page.waitForSelector('#allow', { timeout: 15_000 })
    const shown = {
      clientName: (await page.textContent('#client-name')) ?? '',
      login: (await page.textContent('#login')) ?? '',
      redirectHost: (await page.textContent('#redirect-host')) ?? '',
      scopes: await page
        .locator('#scopes li')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-scope') ?? '')),
    }
    if (screenshot) {
      mkdirSync(dirname(screenshot), { recursive: true })
      await page.screenshot({ path: screenshot, fullPage: true })
    }
    await page.click(decision === 'allow' ? '#allow' : '#deny')
    return { ...shown, query: await arrived }
  } finally {
    await context.close()
  }
}
