// The OAuth 2.1 authorization server's protocol machinery, configured: oidc-provider (an OpenID
// certified implementation) does the endpoints, PKCE, codes, token rotation, replay detection and
// revocation; this file says what kiln allows. Public clients only (no client secrets), registered
// dynamically (RFC 7591) or named by a Client ID Metadata Document URL; authorization code with
// PKCE S256; every access token is opaque and bound (RFC 8707) to this service or one of its MCP
// endpoints; refresh tokens rotate on each use.
import { createHmac, generateKeyPairSync } from 'node:crypto'
import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider'
import { disconnectApp } from '../../app/identity/oauth-connections.ts'
import { ReadStoreOAuthAdapter } from '../../app/identity/oauth-store.ts'
import type { FetchPolicy } from '../../app/jobs/stage-input.ts'
import { fetchDocument } from '../../app/security/fetch-url.ts'
import { secretFile } from '../../app/security/secret-file.ts'
import type { Services } from '../../app/services.ts'
import { toolsets } from '../../domain/tools/catalog.ts'
import { readScope, runScope } from '../auth.ts'
import { allowedOrigins } from '../protected-resource.ts'

export const oauthPrefix = '/oauth'
export const consentPath = `${oauthPrefix}/consent`

/** What a person is asked to allow, in words, on the consent page. */
export const scopeDescriptions: Record<string, string> = {
  [runScope]: 'Run tools and spend your credits (start, cancel and delete jobs, upload files)',
  [readScope]: 'Read only: see your tools, jobs, results, balance and usage',
}
const resourceScopes = Object.keys(scopeDescriptions).join(' ')

/** The resources a token may be bound to: the whole service, all of MCP, or one toolset's MCP. */
export function resourceIndicators(publicUrl: string): string[] {
  return [publicUrl, `${publicUrl}/mcp`, ...toolsets.map((toolset) => `${publicUrl}/mcp/${toolset}`)]
}

/** The key that would sign ID tokens (openid requests), generated once into the data folder. */
function signingKey(dataDir: string) {
  const jwk = secretFile(join(dataDir, 'oauth-signing-key.json'), () =>
    JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })),
  )
  return { ...JSON.parse(jwk), use: 'sig', alg: 'ES256' }
}

/** The library asks for WHATWG fetch; it gets the SSRF-safe fetcher, with no redirects followed. */
function safeFetch(policy: FetchPolicy) {
  return async (url: URL | string): Promise<Response> => {
    const document = await fetchDocument(String(url), {
      ...policy,
      maxBytes: 64 * 1024,
      timeoutMs: policy.timeoutMs ?? 5000,
      maxRedirects: 0,
    })
    const headers = new Headers()
    if (document.contentType) headers.set('content-type', document.contentType)
    if (document.cacheControl) headers.set('cache-control', document.cacheControl)
    return new Response(new Uint8Array(document.body), { status: document.status, headers })
  }
}

export function createAuthorizationServer(
  services: Services,
  fetchPolicy: FetchPolicy,
  log: FastifyBaseLogger,
): Provider {
  const { config } = services.ctx
  const { publicUrl } = config
  const lifetimes = config.authorizationServer
  const resources = new Set(resourceIndicators(publicUrl))

  const configuration: Configuration = {
    adapter: (model: string) => new ReadStoreOAuthAdapter(services, model),
    clients: [],
    jwks: { keys: [signingKey(config.dataDir)] },
    cookies: {
      keys: [createHmac('sha256', config.signingSecret).update('kiln oauth cookies').digest('base64url')],
    },
    // Public clients only: a native app or an agent cannot keep a secret.
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Registration checks a client's `scope` against these; tokens get them through the resource.
    scopes: ['openid', ...Object.keys(scopeDescriptions)],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: lifetimes.clientMetadataCacheSeconds,
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets a token for the whole service.
        defaultResource: async () => publicUrl,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget(`${resource} is not served here`)
          return {
            scope: resourceScopes,
            audience: resource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: lifetimes.accessTokenTtlSeconds,
          }
        },
      },
    },
    fetch: safeFetch(fetchPolicy) as unknown as Configuration['fetch'],
    ttl: {
      AccessToken: lifetimes.accessTokenTtlSeconds,
      AuthorizationCode: lifetimes.authorizationCodeTtlSeconds,
      RefreshToken: lifetimes.refreshTokenTtlSeconds,
      Grant: lifetimes.refreshTokenTtlSeconds,
      Interaction: 600,
      Session: 600,
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Browser-based clients call the token endpoint from their own page: the origins allowed on
    // /mcp, and the client's own redirect origins (what a public client runs on).
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      (allowedOrigins(config).has(origin) ||
        client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) === true),
    interactions: { url: async (_ctx, interaction) => `${consentPath}/${interaction.uid}` },
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      ctx.body = errorPage(String(out.error), String(out.error_description ?? ''))
    },
  }
  const provider = new Provider(publicUrl, configuration)
  // Endpoint URLs are built from the request; requests are rewritten to PUBLIC_URL's host first.
  provider.proxy = true
  // Replay of a spent code or refresh token (the library revokes the grant), or RFC 7009 revocation.
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    const reason = ctx.oidc.route === 'revocation' ? 'revoked_by_client' : 'token_reused'
    void disconnectApp(services, grantId, reason).catch((error: unknown) =>
      log.error({ err: error, grantId }, 'oauth: recording the end of a grant failed'),
    )
  })
  // The library answers `server_error` without details; the details go to the log.
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) =>
    log.error({ err: error }, 'oauth: unexpected error in the authorization server'),
  )
  return provider
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  )

export function errorPage(error: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title>
<link rel="stylesheet" href="/console/console.css"></head><body><main>
<h1>Authorization failed</h1><p id="oauth-error"><code>${escapeHtml(error)}</code></p>
<p id="oauth-error-description">${escapeHtml(description)}</p></main></body></html>`
}

export { escapeHtml }
