// Who is calling: an API key, an operator's console token (a credential of its own kind), or an OAuth
// access token: one issued by this server's authorization server (opaque, looked up by hash, bound to
// the resource it was issued for), or a JWT of a configured external issuer (verified against its
// issuer, audience and JWKS). Secrets are looked up by hash; the lookup is an indexed equality on a
// SHA-256 of a high-entropy secret, so response time says nothing about the secret.
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose'
import { recordOAuthUse } from '../app/identity/oauth-connections.ts'
import { findAccessToken } from '../app/identity/oauth-store.ts'
import { hashSecret } from '../app/security/secrets.ts'
import type { Services } from '../app/services.ts'
import { DomainError, isDomainError } from '../domain/errors.ts'
import { secretShape } from '../domain/ids.ts'
import type { AccountDoc } from '../projections/accounts/account-docs.ts'
import { accountsModel, collections } from '../projections/accounts/account-docs.ts'
import { type Credential, findCredentialBySecretHash, recordKeyUse } from '../projections/keys/queries.ts'
import type { RequestLimits } from './rate-limit.ts'

export interface Principal {
  accountId: string
  kind: 'key' | 'oauth' | 'console'
  credentialId: string
  /** OAuth only: what the person consented to. Keys and console sessions may do everything. */
  scopes?: readonly string[]
}

/** Running tools and spending credits; without it an OAuth token only reads. */
export const runScope = 'jobs:run'
export const readScope = 'read'

const jwksCache = new Map<string, JWTVerifyGetKey>()

async function verifyOAuth(services: Services, token: string): Promise<Principal> {
  const oauth = services.ctx.config.oauth
  if (!oauth) throw new DomainError('unauthorized', 'Invalid API key.')
  let jwks = jwksCache.get(oauth.jwksUrl)
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(oauth.jwksUrl))
    jwksCache.set(oauth.jwksUrl, jwks)
  }
  try {
    const { payload } = await jwtVerify(token, jwks, { issuer: oauth.issuer, audience: oauth.audience })
    const accountId = payload[oauth.accountClaim]
    if (typeof accountId !== 'string') throw new Error('no account claim')
    return { accountId, kind: 'oauth', credentialId: `oauth:${payload.sub ?? accountId}` }
  } catch {
    throw new DomainError('unauthorized', 'The access token is invalid or expired.')
  }
}

const bearerMatch = /^Bearer\s+(\S+)\s*$/i

export function bearerToken(header: string | undefined): string {
  const match = header ? bearerMatch.exec(header) : null
  if (!match) throw new DomainError('unauthorized', 'Send Authorization: Bearer <API key>.')
  return match[1]!
}

/**
 * An access token of this server's authorization server, or null when it issued no such token. The
 * token must have been issued for `resource` or for a URL above it (a token for the whole service
 * serves /mcp; one for /mcp/pdf serves nothing else).
 */
async function verifyOwnToken(
  services: Services,
  token: string,
  resource: string,
): Promise<Principal | null> {
  const payload = await findAccessToken(services, token)
  if (!payload) return null
  const audiences = [payload.aud].flat().filter((aud): aud is string => typeof aud === 'string')
  if (!audiences.some((aud) => resource === aud || resource.startsWith(`${aud}/`)))
    throw new DomainError('unauthorized', `The access token was not issued for ${resource}.`)
  const accountId = payload.accountId
  const grantId = payload.grantId
  if (typeof accountId !== 'string' || typeof grantId !== 'string')
    throw new DomainError('unauthorized', 'The access token is invalid or expired.')
  void recordOAuthUse(services, grantId).catch(() => {})
  return {
    accountId,
    kind: 'oauth',
    credentialId: `grant:${grantId}`,
    scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
  }
}

/** OAuth tokens granted read only may not start, cancel or delete work (403, naming the scope). */
export function requireScope(principal: Principal, scope: string): void {
  if (principal.scopes === undefined || principal.scopes.includes(scope)) return
  throw new DomainError(
    'forbidden',
    `This access token was granted read-only access; running tools and spending credits needs the ${scope} scope.`,
    { details: { requiredScope: scope } },
  )
}

/**
 * `resource`: the URL of what is being called (PUBLIC_URL for REST, its /mcp endpoint for MCP), for
 * the RFC 8707 audience check of this server's own access tokens.
 */
export async function authenticate(
  services: Services,
  authorization: string | undefined,
  resource: string = services.ctx.config.publicUrl,
): Promise<Principal> {
  const token = bearerToken(authorization)
  // One case per kind of credential, told apart by the token's shape.
  const principal = secretShape.test(token)
    ? await fromSecret(services, token)
    : ((await verifyOwnToken(services, token, resource)) ?? (await verifyOAuth(services, token)))
  await requireAccount(services, principal.accountId)
  return principal
}

/**
 * authenticate() behind the per-address limit on failed attempts: once an address has presented too
 * many invalid credentials it gets 429 before any lookup, whatever it sends, so guessing keys (or
 * learning which ones exist) costs time. Requests that present no credential at all are not counted.
 */
export async function authenticateFrom(
  services: Services,
  limits: RequestLimits,
  request: { headers: { authorization?: string | undefined }; ip: string },
  resource?: string,
): Promise<Principal> {
  limits.authFailures.check(request.ip, services.ctx.now())
  try {
    return await authenticate(services, request.headers.authorization, resource)
  } catch (error) {
    if (request.headers.authorization !== undefined && isDomainError(error) && error.code === 'unauthorized')
      countAuthFailure(services, limits, request.ip)
    throw error
  }
}

/** One failed attempt from `address` (a wrong key, token or session secret). */
export function countAuthFailure(services: Services, limits: RequestLimits, address: string): void {
  try {
    limits.authFailures.take(address, services.ctx.now())
  } catch {
    // Already empty: the next attempt is refused by check().
  }
}

/** Last use is kept to the minute: more often would turn every request into a read-store write. */
const keyUseResolutionMs = 60_000
const lastRecordedUse = new WeakMap<Services, Map<string, number>>()

function noteKeyUse(services: Services, credentialId: string): void {
  const now = services.ctx.now()
  let recorded = lastRecordedUse.get(services)
  if (!recorded) {
    recorded = new Map()
    lastRecordedUse.set(services, recorded)
  }
  const last = recorded.get(credentialId)
  if (last !== undefined && now - last < keyUseResolutionMs && now >= last) return
  if (recorded.size >= 100_000) recorded.clear()
  recorded.set(credentialId, now)
  void recordKeyUse(services.models, credentialId, new Date(now)).catch(() => {})
}

/** An API key or console token, by the hash of its secret; cached until a revocation is projected. */
async function fromSecret(services: Services, token: string): Promise<Principal> {
  const secretHash = hashSecret(token)
  const cacheKey = `credential:${secretHash}`
  let credential = services.credentials.get<Credential>(cacheKey)
  if (!credential) {
    const epoch = services.credentials.epoch
    const found = await findCredentialBySecretHash(services.models, secretHash)
    if (!found || found.revoked) throw new DomainError('unauthorized', 'The API key is invalid or revoked.')
    services.credentials.remember(cacheKey, found, epoch)
    credential = found
  }
  return principalOf(services, credential)
}

function principalOf(services: Services, credential: Credential): Principal {
  if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= services.ctx.now())
    throw new DomainError('unauthorized', 'The console token has expired; ask the operator for a new one.')
  noteKeyUse(services, credential.id)
  return {
    accountId: credential.accountId,
    kind: credential.kind === 'console_token' ? 'console' : 'key',
    credentialId: credential.id,
  }
}

/**
 * authenticateFrom() for an API key or console token whose credential and account are both in the
 * cache (the usual request), answered without waiting; null sends the caller to authenticateFrom().
 * The cache is emptied when a revocation or a disabling is projected, so both still take effect on
 * the next request.
 */
export function knownKeyPrincipal(
  services: Services,
  limits: RequestLimits,
  request: { headers: { authorization?: string | undefined }; ip: string; raw: { socket: object } },
): Principal | null {
  const header = request.headers.authorization
  if (header === undefined) return null
  limits.authFailures.check(request.ip, services.ctx.now())
  const cacheKey = credentialKeyOf(request.raw.socket, header)
  if (cacheKey === null) return null
  const credential = services.credentials.get<Credential>(cacheKey)
  if (!credential || !services.credentials.get<true>(`account:${credential.accountId}`)) return null
  return principalOf(services, credential)
}

/**
 * The credential cache's key for an Authorization header (null: not an API key or console token),
 * remembered per connection: a client sends the same key on every request of a kept-alive
 * connection, so its secret is hashed once per connection rather than once per request. The header
 * is kept with its connection while that lives; the credential itself is looked up on every request,
 * so a revocation still takes effect on the next one.
 */
const headerKeys = new WeakMap<object, { header: string; cacheKey: string | null }>()
/**
 * The same, across connections, for a client (or a gateway in front of many) that opens a new one
 * per request or sends several keys over one: bounded, and started over when full.
 */
const recentHeaderKeys = new Map<string, string | null>()
const maxRecentHeaderKeys = 10_000

function credentialKeyOf(socket: object, header: string): string | null {
  const known = headerKeys.get(socket)
  if (known?.header === header) return known.cacheKey
  let cacheKey = recentHeaderKeys.get(header)
  if (cacheKey === undefined) {
    const token = bearerMatch.exec(header)?.[1]
    cacheKey = token !== undefined && secretShape.test(token) ? `credential:${hashSecret(token)}` : null
    if (recentHeaderKeys.size >= maxRecentHeaderKeys) recentHeaderKeys.clear()
    recentHeaderKeys.set(header, cacheKey)
  }
  headerKeys.set(socket, { header, cacheKey })
  return cacheKey
}

/** The account exists and is not disabled; cached until a disabling is projected. */
export async function requireAccount(services: Services, accountId: string): Promise<void> {
  const cacheKey = `account:${accountId}`
  if (services.credentials.get<true>(cacheKey)) return
  const epoch = services.credentials.epoch
  const account = await (
    await services.models.collection<AccountDoc>(accountsModel, collections.accounts)
  ).get(accountId)
  if (!account) throw new DomainError('unauthorized', 'No account for these credentials.')
  if (account.disabled) throw new DomainError('account_disabled')
  services.credentials.remember(cacheKey, true, epoch)
}

export function requireConsole(principal: Principal): void {
  if (principal.kind !== 'console')
    throw new DomainError(
      'forbidden',
      'This endpoint is for console sessions only; API keys and OAuth tokens cannot use it.',
    )
}
