// Who is calling: an API key, an operator's console token (a credential of its own kind), or an OAuth
// access token (a JWT verified against the configured issuer, audience and JWKS). Secrets are looked
// up by hash; the lookup is an indexed equality on a SHA-256 of a 256-bit secret, so response time
// says nothing about the secret.
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose'
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
}

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

export function bearerToken(header: string | undefined): string {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (!match) throw new DomainError('unauthorized', 'Send Authorization: Bearer <API key>.')
  return match[1]!
}

export async function authenticate(
  services: Services,
  authorization: string | undefined,
): Promise<Principal> {
  const token = bearerToken(authorization)
  // One case per kind of credential, told apart by the token's shape.
  const principal = secretShape.test(token)
    ? await fromSecret(services, token)
    : await verifyOAuth(services, token)
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
): Promise<Principal> {
  limits.authFailures.check(request.ip, services.ctx.now())
  try {
    return await authenticate(services, request.headers.authorization)
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
  if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= services.ctx.now())
    throw new DomainError('unauthorized', 'The console token has expired; ask the operator for a new one.')
  noteKeyUse(services, credential.id)
  return {
    accountId: credential.accountId,
    kind: credential.kind === 'console_token' ? 'console' : 'key',
    credentialId: credential.id,
  }
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
