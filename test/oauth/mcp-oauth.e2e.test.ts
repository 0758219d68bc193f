// The MCP TypeScript SDK's own OAuth client against a running kiln, end to end over HTTP: it starts
// unauthenticated, discovers the authorization server from the 401, registers (RFC 7591, and
// separately as a Client ID Metadata Document served over HTTPS), sends a person to consent in
// headless Chromium, exchanges the code with its PKCE verifier, runs a paid tool, refreshes,
// revokes, and is refused at once.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { registerOAuth } from '../../api/oauth/plugin.ts'
import { accountStream } from '../../domain/account/events.ts'
import { chromiumPath, launchChromium } from '../support/chromium.ts'
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { consent, MemoryOAuthClient, type RedirectEndpoint, startRedirectEndpoint } from './oauth-client.ts'

const available = peerReady(
  'MCP OAuth end to end',
  !existsSync(chromiumPath) && `no Chromium at ${chromiumPath} (apt-get install chromium)`,
)
const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts')

describe.skipIf(!available)('an MCP client connecting by URL alone', () => {
  let service: TestService
  let grace: TestAccount
  let browser: Browser
  let redirect: RedirectEndpoint
  let https: HttpsFixture

  beforeAll(async () => {
    https = await startHttpsFixture()
    service = await startTestService(
      {},
      {
        plugins: [
          registerConsole,
          registerOAuth({
            fetchPolicy: {
              allowAddresses: new Set(['127.0.0.1']),
              allowedPorts: [https.port],
              ca: https.ca,
            },
          }),
          (app) => registerMcp(app, app.services, { waitMs: 10_000 }),
        ],
      },
    )
    grace = await service.account({ credits: 100, login: 'grace' })
    redirect = await startRedirectEndpoint()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await redirect?.close()
    await service?.close()
    await https?.close()
  })

  const mcpUrl = () => new URL(`${service.baseUrl}/mcp`)

  async function connectWith(client: MemoryOAuthClient): Promise<Client> {
    const mcp = new Client({ name: 'oauth-e2e', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: client }))
    return mcp
  }

  /** The whole first connection: 401, discovery, registration, consent, code exchange, connect. */
  async function authorize(client: MemoryOAuthClient, screenshot?: string) {
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: client })
    const mcp = new Client({ name: 'oauth-e2e', version: '1.0.0' })
    await expect(mcp.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(client.authorizationUrl).not.toBeNull()
    const shown = await consent(browser, client.authorizationUrl!, grace.consoleToken, redirect, {
      screenshot: screenshot && join(artifacts, screenshot),
    })
    // The server returns the state untouched; the client's check refuses a forged one.
    expect(shown.query.get('state')).toBe(client.lastState)
    expect(() =>
      client.acceptRedirect(new URLSearchParams({ code: 'attacker-code', state: 'forged' })),
    ).toThrow(/state this client did not send/)
    await transport.finishAuth(client.acceptRedirect(shown.query))
    return shown
  }

  const balance = async () =>
    ((await (await grace.request('/v1/billing')).json()) as { balance: number }).balance

  it('registers dynamically, consents, runs a paid tool, refreshes, revokes, and is refused', async () => {
    const client = new MemoryOAuthClient(redirect.url, { name: 'Dynamic Agent' })
    const shown = await authorize(client, 'oauth-consent.png')
    expect(shown).toMatchObject({
      clientName: 'Dynamic Agent',
      login: 'grace',
      redirectHost: `127.0.0.1:${redirect.port}`,
      scopes: ['jobs:run', 'read'],
    })
    const tokens = client.tokens()!
    expect(tokens.refresh_token).toBeTruthy()
    expect(tokens.expires_in).toBeLessThanOrEqual(900)

    const before = await balance()
    const mcp = await connectWith(client)
    const result = await mcp.callTool({
      name: 'get_random_numbers',
      arguments: { count: 3, idempotency_key: 'oauth-e2e-1' },
    })
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ status: 'succeeded', credits_charged: 1 })
    expect(await balance()).toBe(before - 1)
    await mcp.close()

    // The token names itself on REST, and is no console session.
    const me = await fetch(`${service.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    expect(me.status).toBe(401)
    expect(me.headers.get('www-authenticate')).toContain('error="invalid_token"')

    // Refresh: the SDK posts the refresh token; a new pair comes back, the old refresh token is spent.
    expect(await auth(client, { serverUrl: mcpUrl() })).toBe('AUTHORIZED')
    const refreshed = client.tokens()!
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    const again = await connectWith(client)
    expect((await again.listTools()).tools.length).toBeGreaterThan(0)
    await again.close()

    // RFC 7009: the client revokes its refresh token; the grant ends, and its access token with it.
    const revocation = await fetch(`${service.baseUrl}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: refreshed.refresh_token!,
        token_type_hint: 'refresh_token',
        client_id: client.clientInformation()!.client_id,
      }),
    })
    expect(revocation.status).toBe(200)
    const refused = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${refreshed.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')

    // The library reports the revoked grant after it answers; the account records it just after.
    const types = async () =>
      (await service.services.ctx.store.readStream(accountStream(grace.accountId))).map((event) => event.type)
    await expect.poll(types).toContain('OAuthAppDisconnected')
    expect(await types()).toContain('OAuthAppConnected')
  })

  it('takes a client named by its metadata document URL, fetched once over HTTPS through the SSRF-safe fetcher', async () => {
    const documentPath = '/agents/metadata-agent.json'
    const clientId = `https://127.0.0.1:${https.port}${documentPath}`
    https.routes.set(documentPath, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(
        JSON.stringify({
          client_id: clientId,
          client_name: 'Metadata Agent',
          redirect_uris: [redirect.url],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        }),
      )
    })
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>
    expect(metadata.client_id_metadata_document_supported).toBe(true)

    const client = new MemoryOAuthClient(redirect.url, { clientMetadataUrl: clientId })
    const shown = await authorize(client)
    expect(client.clientInformation()?.client_id).toBe(clientId)
    expect(shown.clientName).toBe('Metadata Agent')

    const mcp = await connectWith(client)
    const result = await mcp.callTool({
      name: 'get_random_numbers',
      arguments: { count: 2, idempotency_key: 'oauth-cimd-1' },
    })
    expect(result.structuredContent).toMatchObject({ status: 'succeeded', credits_charged: 1 })
    await mcp.close()
    expect(await auth(client, { serverUrl: mcpUrl() })).toBe('AUTHORIZED')
    // Authorization, consent, code exchange and refresh all needed the client; one fetch served them.
    expect(https.seen.length).toBe(1)

    // The person disconnects the app in the console; its current token is refused at once.
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${service.baseUrl}/console`)
    await page.click('summary')
    await page.fill('#token', grace.consoleToken)
    await page.click('#sign-in')
    const row = page.locator('#apps tbody tr', { hasText: 'Metadata Agent' })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.textContent()).toContain(`127.0.0.1:${redirect.port}`)
    await row.locator('button').click()
    await expect.poll(() => row.count()).toBe(0)
    await context.close()
    const refused = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${client.tokens()!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(refused.status).toBe(401)
  })
})
