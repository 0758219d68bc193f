// Signed upload and download URLs: the URL itself is the credential, so a PUT or GET on it needs no
// Authorization header. The signature covers the method, the exact path and the expiry, so none of
// them can be changed; anything else in the query is not covered and must not grant anything.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { DomainError } from '../../domain/errors.ts'

export type SignedMethod = 'GET' | 'PUT'

const uploadValidityMs = 3_600_000
const maxDownloadValidityMs = 86_400_000
// Short enough to be unique, and tagged with a version so a change of format never verifies old URLs.
const domainTag = 'kiln-signed-url-v1'
const signaturePattern = /^[A-Za-z0-9_-]{43}$/
const expiresPattern = /^\d{1,16}$/

/** Upload URLs are valid for one hour. */
export const uploadUrlExpiresAt = (nowMs: number) => nowMs + uploadValidityMs

/** Download URLs are valid for at most 24 hours, and never past the moment the outputs expire. */
export const downloadUrlExpiresAt = (nowMs: number, outputsExpireAtMs: number) =>
  Math.min(nowMs + maxDownloadValidityMs, outputsExpireAtMs)

/**
 * The query string (`expires=…&sig=…`) that authorises `method` on `path` until `expiresAtMs`.
 * `path` is the percent-encoded path exactly as it will appear in the request line, without a query.
 * `secret` is the service's signing secret from configuration (at least 32 bytes).
 */
export function signPath(secret: string, method: SignedMethod, path: string, expiresAtMs: number): string {
  const expires = Math.floor(expiresAtMs).toString()
  return new URLSearchParams({ expires, sig: signature(secret, method, path, expires) }).toString()
}

/** Throws invalid_token unless the query carries a valid, unexpired signature for this method and path. */
export function verifySignedPath(
  secret: string,
  method: string,
  path: string,
  query: string | URLSearchParams | Record<string, unknown>,
  nowMs: number,
): void {
  const { expires, sig } = signedFields(query)
  if (expires === null || sig === null || !expiresPattern.test(expires) || !signaturePattern.test(sig)) {
    throw new DomainError('invalid_token', 'The URL has no valid signature.')
  }
  const expected = Buffer.from(signature(secret, method, path, expires))
  // Both are 43 characters here, as timingSafeEqual requires; comparing the encoded text rather than
  // decoded bytes also refuses the alternative spellings lenient base64 decoding would accept.
  if (!timingSafeEqual(expected, Buffer.from(sig))) {
    throw new DomainError('invalid_token', 'The URL signature does not match this request.')
  }
  if (nowMs >= Number(expires)) throw new DomainError('invalid_token', 'The signed URL has expired.')
}

function signature(secret: string, method: string, path: string, expires: string): string {
  if (Buffer.byteLength(secret) < 32) throw new Error('The URL signing secret must be at least 32 bytes.')
  // Fields joined by newlines, which neither a method, a request path nor a number can contain.
  return createHmac('sha256', secret)
    .update(`${domainTag}\n${method.toUpperCase()}\n${path}\n${expires}`)
    .digest('base64url')
}

function signedFields(query: string | URLSearchParams | Record<string, unknown>) {
  const params =
    typeof query === 'string' || query instanceof URLSearchParams
      ? new URLSearchParams(query)
      : fromRecord(query)
  // A repeated field is ambiguous (which one did the server check?), so it counts as missing.
  const single = (name: string) => (params.getAll(name).length === 1 ? params.get(name) : null)
  return { expires: single('expires'), sig: single('sig') }
}

function fromRecord(record: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') params.append(name, item)
    }
  }
  return params
}
