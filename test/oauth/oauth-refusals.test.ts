// The authorization server refuses what it must, each time with a clear OAuth error and nothing
// granted: redirect URIs that were not registered, PKCE missing or wrong, a code or a refresh token
// used twice (the whole family dies), a token for another resource, an expired token, consent without
// a signed-in person; and `state` comes back exactly as sent, for the client's own check. Also what an
// OAuth token may do on REST: Me.auth is oauth, read-only tokens cannot start jobs, console-only
// endpoints refuse them, and the console lists and revokes connected apps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { registerOAuth } from '../../api/oauth/plugin.ts'
import { accountStream } from '../../domain/account/events.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import {
  authorizationUrl,
  Browserish,
  type Metadata,
  metadataOf,
  pkcePair,
  register,
  tokenRequest,
} from './http-flow.ts'

let service: TestService
let ada: TestAccount
let metadata: Metadata
let clockOffset = 0
const redirectUri = 'http://127.0.0.1:49152/callback'

beforeAll(async () => {
  service = await startTestService(
    {},
    {
      plugins: [
        registerConsole,
        registerOAuth(),
        (app) => registerMcp(app, app.services, { waitMs: 10_000 }),
      ],
    },
  )
  const realNow = service.services.ctx.now
  service.services.ctx.now = () => realNow() + clockOffset
  ada = await service.account({ credits: 50, login: 'ada' })
  metadata = await metadataOf(service.baseUrl)
})
afterAll(() => service?.close())

async function newClient(name = 'Refusal Agent', redirectUris = [redirectUri]) {
  const { status, body } = await register(metadata, { client_name: name, redirect_uris: redirectUris })
  expect(status).toBe(201)
  return body.client_id as string
}

interface Asked {
  clientId: string
  scope?: string
  resource?: string
  redirect?: string
  state?: string
  challenge?: string
  challengeMethod?: string
}

/** A signed-in person's browser goes through the flow and allows; answers where it was sent. */
async function authorize(asked: Asked, browser = new Browserish(service.baseUrl)) {
  const pkce = pkcePair()
  if (browser.cookies.size === 0) await browser.signIn(ada.consoleToken)
  const start = await browser.follow(
    authorizationUrl(metadata, {
      client_id: asked.clientId,
      redirect_uri: asked.redirect ?? redirectUri,
      scope: asked.scope ?? 'jobs:run read',
      resource: asked.resource ?? `${service.baseUrl}/mcp`,
      state: asked.state ?? 'state-1',
      code_challenge: 'challenge' in asked ? asked.challenge : pkce.challenge,
      code_challenge_method: asked.challengeMethod ?? 'S256',
    }),
  )
  if (start.response.status !== 200 || !new URL(start.url).pathname.startsWith('/oauth/consent/'))
    return { ...start, verifier: pkce.verifier, query: new URL(start.url).searchParams }
  const decided = await browser.decide(start.url, 'allow')
  return { ...decided, verifier: pkce.verifier, query: new URL(decided.url).searchParams }
}

async function tokensFor(asked: Asked) {
  const flow = await authorize(asked)
  const code = flow.query.get('code')
  expect(code, flow.url).toBeTruthy()
  const exchanged = await tokenRequest(metadata, {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: asked.redirect ?? redirectUri,
    code_verifier: flow.verifier,
    client_id: asked.clientId,
  })
  expect(exchanged.status).toBe(200)
  return exchanged.body as { access_token: string; refresh_token: string; scope: string; expires_in: number }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const mcpList = (path: string, token: string) =>
  fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
const grants = async () =>
  (await service.services.ctx.store.readStream(accountStream(ada.accountId))).filter(
    (event) => event.type === 'OAuthAppConnected',
  ).length
const disconnections = async () =>
  (await service.services.ctx.store.readStream(accountStream(ada.accountId)))
    .filter((event) => event.type === 'OAuthAppDisconnected')
    .map((event) => (event.data as { reason: string }).reason)

describe('metadata', () => {
  it('publishes RFC 8414 metadata at the root and OpenID discovery, S256 only, public clients only', async () => {
    expect(metadata).toMatchObject({
      issuer: service.baseUrl,
      authorization_endpoint: `${service.baseUrl}/oauth/auth`,
      token_endpoint: `${service.baseUrl}/oauth/token`,
      registration_endpoint: `${service.baseUrl}/oauth/reg`,
      revocation_endpoint: `${service.baseUrl}/oauth/token/revocation`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
    })
    const discovery = await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()
    expect(discovery).toMatchObject({ issuer: service.baseUrl, token_endpoint: metadata.token_endpoint })
    const resource = await (await fetch(`${service.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(resource).toMatchObject({ authorization_servers: [service.baseUrl] })
  })

  it('registers public clients only', async () => {
    const confidential = await register(metadata, {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    expect(confidential.status).toBe(400)
    expect(confidential.body.error).toBe('invalid_client_metadata')
  })
})

describe('refusals', () => {
  it('refuses a redirect URI that was not registered, without redirecting anywhere', async () => {
    const clientId = await newClient()
    const before = await grants()
    for (const wrong of ['http://127.0.0.1:49152/elsewhere', 'https://attacker.example/callback']) {
      const flow = await authorize({ clientId, redirect: wrong })
      expect(flow.response.status).toBe(400)
      expect(flow.url).toContain('/oauth/auth')
      expect(await flow.response.text()).toContain('invalid_redirect_uri')
    }
    expect(await grants()).toBe(before)
  })

  it('refuses a client metadata document URL on a private address without connecting', async () => {
    const browser = new Browserish(service.baseUrl)
    await browser.signIn(ada.consoleToken)
    for (const clientId of [
      'https://169.254.169.254/latest/meta-data/client.json',
      'https://127.0.0.1/client.json',
    ]) {
      const flow = await browser.follow(
        authorizationUrl(metadata, {
          client_id: clientId,
          redirect_uri: redirectUri,
          scope: 'read',
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        }),
      )
      expect(flow.response.status).toBe(400)
      expect(await flow.response.text()).toContain('invalid_client')
    }
  })

  it('lets a native client use any loopback port (RFC 8252), the path still exact', async () => {
    const clientId = await newClient()
    const tokens = await tokensFor({ clientId, redirect: 'http://127.0.0.1:61000/callback' })
    expect(tokens.access_token).toBeTruthy()
  })

  it('refuses a request without PKCE, or with the plain method', async () => {
    const clientId = await newClient()
    const before = await grants()
    const missing = await authorize({ clientId, challenge: undefined })
    expect(missing.url.startsWith(redirectUri)).toBe(true)
    expect(missing.query.get('error')).toBe('invalid_request')
    expect(missing.query.get('code')).toBeNull()
    const plain = await authorize({ clientId, challenge: 'a'.repeat(43), challengeMethod: 'plain' })
    expect(plain.query.get('error')).toBe('invalid_request')
    expect(await grants()).toBe(before)
  })

  it('refuses a wrong or missing PKCE verifier at the token endpoint', async () => {
    const clientId = await newClient()
    const flow = await authorize({ clientId })
    const code = flow.query.get('code')!
    for (const verifier of ['w'.repeat(43), undefined]) {
      const refused = await tokenRequest(metadata, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: clientId,
      })
      expect(refused.status).toBe(400)
      expect(refused.body.access_token).toBeUndefined()
      expect(['invalid_grant', 'invalid_request']).toContain(refused.body.error)
    }
  })

  it('refuses a code used twice, and ends the grant it produced', async () => {
    const clientId = await newClient()
    const flow = await authorize({ clientId })
    const exchange = () =>
      tokenRequest(metadata, {
        grant_type: 'authorization_code',
        code: flow.query.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: flow.verifier,
        client_id: clientId,
      })
    const first = await exchange()
    expect(first.status).toBe(200)
    const second = await exchange()
    expect(second.status).toBe(400)
    expect(second.body.error).toBe('invalid_grant')
    expect((await mcpList('/mcp', String(first.body.access_token))).status).toBe(401)
  })

  it('refuses a refresh token used twice, and the whole family dies', async () => {
    const clientId = await newClient()
    const tokens = await tokensFor({ clientId })
    const refresh = (token: string) =>
      tokenRequest(metadata, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId })
    const rotated = await refresh(tokens.refresh_token)
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token)
    expect((await mcpList('/mcp', String(rotated.body.access_token))).status).toBe(200)

    const replay = await refresh(tokens.refresh_token)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    expect((await refresh(String(rotated.body.refresh_token))).body.error).toBe('invalid_grant')
    const refused = await mcpList('/mcp', String(rotated.body.access_token))
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    await expect.poll(disconnections).toContain('token_reused')
  })

  it('binds tokens to a resource: another server is refused, another endpoint answers 401', async () => {
    const clientId = await newClient()
    const elsewhere = await authorize({ clientId, resource: 'https://elsewhere.example/mcp' })
    expect(elsewhere.query.get('error')).toBe('invalid_target')
    expect(elsewhere.query.get('code')).toBeNull()

    const pdfOnly = await tokensFor({ clientId, resource: `${service.baseUrl}/mcp/pdf` })
    expect((await mcpList('/mcp/pdf', pdfOnly.access_token)).status).toBe(200)
    const wrong = await mcpList('/mcp/random', pdfOnly.access_token)
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await mcpList('/mcp', pdfOnly.access_token)).status).toBe(401)
    expect((await fetch(`${service.baseUrl}/v1/me`, { headers: bearer(pdfOnly.access_token) })).status).toBe(
      401,
    )
  })

  it('refuses an expired access token at once', async () => {
    const clientId = await newClient()
    const tokens = await tokensFor({ clientId })
    expect((await mcpList('/mcp', tokens.access_token)).status).toBe(200)
    clockOffset += (tokens.expires_in + 1) * 1000
    try {
      const refused = await mcpList('/mcp', tokens.access_token)
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    } finally {
      clockOffset -= (tokens.expires_in + 1) * 1000
    }
  })

  it('sends a person who is not signed in to sign in, and takes no consent from them', async () => {
    const clientId = await newClient()
    const person = new Browserish(service.baseUrl)
    const start = await person.follow(
      authorizationUrl(metadata, {
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'jobs:run',
        resource: `${service.baseUrl}/mcp`,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    )
    const signIn = new URL(start.url)
    expect(signIn.pathname).toBe('/console/sign-in')
    const consentPath = signIn.searchParams.get('return_to')!
    expect(consentPath).toMatch(/^\/oauth\/consent\/[\w-]+$/)
    const before = await grants()
    const posted = await person.decide(`${service.baseUrl}${consentPath}`, 'allow')
    expect(posted.response.status).toBe(401)
    expect(posted.url.startsWith(redirectUri)).toBe(false)
    // Signed in, but the decision posted from another origin: refused too.
    await person.signIn(ada.consoleToken)
    const crossSite = await person.decide(
      `${service.baseUrl}${consentPath}`,
      'allow',
      'https://attacker.example',
    )
    expect(crossSite.response.status).toBe(403)
    expect(await grants()).toBe(before)
  })

  it('returns state exactly as sent, so the client can refuse a forged one', async () => {
    const clientId = await newClient()
    const sent = 'st/ate+with spaces&odd=chars~é'
    const flow = await authorize({ clientId, state: sent })
    expect(flow.query.get('state')).toBe(sent)
    expect(flow.query.get('code')).toBeTruthy()
    // A redirect whose state differs is what the client refuses (see MemoryOAuthClient.acceptRedirect,
    // exercised with the MCP SDK in mcp-oauth.e2e.test.ts); the server never rewrites it.
    const other = await authorize({ clientId, state: 'another-request' })
    expect(other.query.get('state')).toBe('another-request')
    expect(other.query.get('code')).not.toBe(flow.query.get('code'))
  })

  it('a denied consent grants nothing', async () => {
    const clientId = await newClient()
    const browser = new Browserish(service.baseUrl)
    await browser.signIn(ada.consoleToken)
    const before = await grants()
    const start = await browser.follow(
      authorizationUrl(metadata, {
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'read',
        resource: service.baseUrl,
        state: 'deny-1',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    )
    const denied = await browser.decide(start.url, 'deny')
    const query = new URL(denied.url).searchParams
    expect(query.get('error')).toBe('access_denied')
    expect(query.get('state')).toBe('deny-1')
    expect(query.get('code')).toBeNull()
    expect(await grants()).toBe(before)
  })
})

describe('what an OAuth token may do', () => {
  it('reports Me.auth oauth; read-only cannot start jobs (403 insufficient_scope); console-only refuses it', async () => {
    const clientId = await newClient('Reader')
    const reader = await tokensFor({ clientId, scope: 'read', resource: service.baseUrl })
    expect(reader.scope).toBe('read')
    const me = await fetch(`${service.baseUrl}/v1/me`, { headers: bearer(reader.access_token) })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ id: ada.accountId, auth: 'oauth' })

    const job = await fetch(`${service.baseUrl}/v1/tools/get_random_numbers/jobs`, {
      method: 'POST',
      headers: {
        ...bearer(reader.access_token),
        'content-type': 'application/json',
        'idempotency-key': 'r1',
      },
      body: JSON.stringify({ options: { count: 1 } }),
    })
    expect(job.status).toBe(403)
    expect(await job.json()).toEqual({
      error: { code: 'forbidden', message: expect.stringContaining('jobs:run') },
    })
    expect(job.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="jobs:run"')
    const listed = (await (
      await fetch(`${service.baseUrl}/v1/jobs`, { headers: bearer(reader.access_token) })
    ).json()) as {
      jobs: unknown[]
    }
    expect(listed.jobs).toEqual([])

    for (const path of ['/v1/keys', '/internal/trpc/keys.list']) {
      const refused = await fetch(`${service.baseUrl}${path}`, { headers: bearer(reader.access_token) })
      expect(refused.status, path).toBe(403)
    }

    const runner = await tokensFor({ clientId, scope: 'jobs:run read', resource: service.baseUrl })
    const started = await fetch(`${service.baseUrl}/v1/tools/get_random_numbers/jobs`, {
      method: 'POST',
      headers: {
        ...bearer(runner.access_token),
        'content-type': 'application/json',
        'idempotency-key': 'r2',
      },
      body: JSON.stringify({ options: { count: 1 } }),
    })
    expect(started.status).toBe(202)
  })

  it('over MCP, a read-only token lists and reads but a tool that runs a job is a forbidden tool error', async () => {
    const clientId = await newClient('MCP Reader')
    const reader = await tokensFor({ clientId, scope: 'read' })
    const call = (name: string, args: Record<string, unknown>) =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(reader.access_token),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      })
    const run = await call('get_random_numbers', { count: 1, idempotency_key: 'mcp-reader-1' })
    expect(run.status).toBe(200)
    const text = await run.text()
    expect(text).toContain('"isError":true')
    expect(text).toContain('forbidden')
    expect(text).toContain('jobs:run')
    const listed = await call('list_jobs', {})
    expect(await listed.text()).not.toContain('"isError":true')
  })

  it('lists connected apps in the console and revokes one: its tokens get 401 at once on REST and MCP', async () => {
    const clientId = await newClient('Console Listed Agent')
    const rest = await tokensFor({ clientId, resource: service.baseUrl })
    expect((await fetch(`${service.baseUrl}/v1/me`, { headers: bearer(rest.access_token) })).status).toBe(200)
    const trpc = (path: string, init: RequestInit = {}) =>
      fetch(`${service.baseUrl}/internal/trpc/${path}`, {
        ...init,
        headers: { ...bearer(ada.consoleToken), 'content-type': 'application/json' },
      })
    const list = async () =>
      (
        (await (await trpc('connectedApps.list')).json()) as {
          result: {
            data: {
              id: string
              client_id: string
              client_name: string
              scopes: string[]
              last_used_at: string | null
            }[]
          }
        }
      ).result.data
    const app = (await list()).find((entry) => entry.client_id === clientId)
    expect(app).toMatchObject({ client_name: 'Console Listed Agent', scopes: ['jobs:run', 'read'] })
    await expect
      .poll(async () => (await list()).find((entry) => entry.client_id === clientId)?.last_used_at)
      .not.toBeNull()

    const revoked = await trpc('connectedApps.revoke', {
      method: 'POST',
      body: JSON.stringify({ id: app!.id }),
    })
    expect(revoked.status).toBe(200)
    expect((await list()).some((entry) => entry.client_id === clientId)).toBe(false)
    const refused = await fetch(`${service.baseUrl}/v1/me`, { headers: bearer(rest.access_token) })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await mcpList('/mcp', rest.access_token)).status).toBe(401)
    const refresh = await tokenRequest(metadata, {
      grant_type: 'refresh_token',
      refresh_token: rest.refresh_token,
      client_id: clientId,
    })
    expect(refresh.body.error).toBe('invalid_grant')
    expect(await disconnections()).toContain('revoked_by_owner')
  })
})

describe('open registration', () => {
  it('is rate limited per client address (429 with Retry-After)', async () => {
    const limited = await startTestService(
      { addressRateLimit: { perSecond: 1, burst: 3 } },
      { plugins: [registerOAuth()], consumeJobs: false },
    )
    try {
      const meta = await metadataOf(limited.baseUrl)
      const statuses: number[] = []
      for (let i = 0; i < 5; i++)
        statuses.push((await register(meta, { redirect_uris: [redirectUri] })).status)
      expect(statuses.slice(0, 3)).toEqual([201, 201, 201])
      const refused = await fetch(meta.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toBeTruthy()
      expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } })
    } finally {
      await limited.close()
    }
  })
})
