// Two API instances on one data folder (one read store) are one authorization server: a token issued
// by one is honoured by the other, a refresh on one spends the token for both, and a replay on the
// other ends the grant everywhere.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildApp } from '../../api/app.ts'
import { registerConsole } from '../../api/console/plugin.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { registerOAuth } from '../../api/oauth/plugin.ts'
import { type Services, startServices } from '../../app/services.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { authorizationUrl, Browserish, type Metadata, metadataOf, pkcePair, register } from './http-flow.ts'

const plugins = [
  registerConsole,
  registerOAuth(),
  (app: FastifyInstance) => registerMcp(app, app.services, { waitMs: 5000 }),
]
let first: TestService
let second: { services: Services; app: FastifyInstance; baseUrl: string }
let ada: TestAccount
let metadata: Metadata
const redirectUri = 'http://127.0.0.1:49153/callback'

beforeAll(async () => {
  first = await startTestService({}, { plugins, consumeJobs: false })
  // The second instance: the same data folder and the same PUBLIC_URL (one issuer), its own port.
  const services = await startServices({ ...first.services.ctx.config }, { consumeJobs: false })
  const app = await buildApp({ services, plugins })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  second = {
    services,
    app,
    baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
  }
  ada = await first.account({ credits: 10, login: 'ada' })
  metadata = await metadataOf(first.baseUrl)
})
afterAll(async () => {
  await second?.app.close()
  await second?.services.close()
  await first?.close()
})

const token = async (base: string, params: Record<string, string>) => {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string> }
}
const tools = (base: string, accessToken: string) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })

it('shares clients, grants and token families between instances', async () => {
  const { body: client } = await register(metadata, { client_name: 'Shared', redirect_uris: [redirectUri] })
  const clientId = client.client_id as string
  const browser = new Browserish(first.baseUrl)
  await browser.signIn(ada.consoleToken)
  const pkce = pkcePair()
  const start = await browser.follow(
    authorizationUrl(metadata, {
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'jobs:run read',
      resource: `${first.baseUrl}/mcp`,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }),
  )
  const decided = await browser.decide(start.url, 'allow')
  const code = new URL(decided.url).searchParams.get('code')!

  // The code issued by the first instance is exchanged at the second.
  const issued = await token(second.baseUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: pkce.verifier,
    client_id: clientId,
  })
  expect(issued.status).toBe(200)
  expect((await tools(first.baseUrl, issued.body.access_token!)).status).toBe(200)
  expect((await tools(second.baseUrl, issued.body.access_token!)).status).toBe(200)

  const rotated = await token(first.baseUrl, {
    grant_type: 'refresh_token',
    refresh_token: issued.body.refresh_token!,
    client_id: clientId,
  })
  expect(rotated.status).toBe(200)
  // The spent refresh token replayed at the other instance: the whole family ends, on both.
  const replay = await token(second.baseUrl, {
    grant_type: 'refresh_token',
    refresh_token: issued.body.refresh_token!,
    client_id: clientId,
  })
  expect(replay.body.error).toBe('invalid_grant')
  expect((await tools(first.baseUrl, rotated.body.access_token!)).status).toBe(401)
  expect((await tools(second.baseUrl, rotated.body.access_token!)).status).toBe(401)
})
