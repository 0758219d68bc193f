// A real OpenID provider for tests: oidc-provider (the certified Node implementation) on a loopback
// port, standing in for Google and the like. Its login screen is a one-field form: whoever types a
// known user name is logged in as that user, and consent is granted on the spot.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

export interface TestUser {
  email?: string
  email_verified?: boolean
  preferred_username?: string
  name?: string
}

export interface TestOidcProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Adds the redirect URI the service will use (known only once the service has a port). */
  allowRedirect(uri: string): void
  close(): Promise<void>
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  let text = ''
  for await (const chunk of request) text += chunk
  return new URLSearchParams(text)
}

const loginForm = (uid: string) =>
  `<!doctype html><html><head><title>Test provider</title></head><body><h1>Test provider sign-in</h1>` +
  `<form method="post" action="/interaction/${uid}/login"><input id="user" name="user" autocomplete="off">` +
  `<button id="log-in" type="submit">Log in</button></form></body></html>`

export async function startOidcProvider(users: Record<string, TestUser>): Promise<TestOidcProvider> {
  const clientId = 'kiln-test'
  const clientSecret = 'kiln-test-secret-kiln-test-secret'
  const redirectUris: string[] = []
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let provider: Provider | null = null
  let handler: ((request: IncomingMessage, response: ServerResponse) => unknown) | null = null
  /** oidc-provider checks its clients' redirect URIs when it starts, so it starts once they are known. */
  function configure() {
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [...redirectUris],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['preferred_username', 'name'],
      },
      findAccount: (_ctx, sub) =>
        users[sub] ? { accountId: sub, claims: () => ({ sub, ...users[sub] }) } : undefined,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      cookies: { keys: ['test-provider-cookie-key'] },
      ttl: {
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        AccessToken: 600,
        IdToken: 600,
        AuthorizationCode: 60,
      },
    })
    handler = provider.callback()
  }

  async function finish(request: IncomingMessage, response: ServerResponse, accountId: string) {
    const details = await provider!.interactionDetails(request, response)
    const grant = new provider!.Grant({ accountId, clientId: String(details.params.client_id) })
    grant.addOIDCScope(String(details.params.scope))
    const grantId = await grant.save()
    await provider!.interactionFinished(
      request,
      response,
      { login: { accountId }, consent: { grantId } },
      {
        mergeWithLastSubmission: false,
      },
    )
  }

  server.on('request', async (request, response) => {
    const path = new URL(request.url ?? '/', issuer).pathname
    const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(path)
    if (!provider || !handler) return response.writeHead(503).end()
    if (!match) return handler(request, response)
    try {
      const details = await provider.interactionDetails(request, response)
      if (request.method === 'POST' && match[2]) {
        const user = (await formBody(request)).get('user') ?? ''
        if (!users[user]) {
          response.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(details.uid))
          return
        }
        return await finish(request, response, user)
      }
      // Already logged in here, only consent missing: grant it.
      if (details.prompt.name === 'consent' && details.session?.accountId)
        return await finish(request, response, details.session.accountId)
      response.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(details.uid))
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error))
    }
  })

  return {
    issuer,
    clientId,
    clientSecret,
    allowRedirect(uri) {
      redirectUris.push(uri)
      configure()
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
