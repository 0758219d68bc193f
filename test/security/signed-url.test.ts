import { describe, expect, it } from 'vitest'
import {
  downloadUrlExpiresAt,
  signPath,
  uploadUrlExpiresAt,
  verifySignedPath,
} from '../../app/security/signed-url.ts'
import { DomainError } from '../../domain/errors.ts'

const secret = 'test-signing-secret-of-at-least-32-bytes'
const now = Date.UTC(2030, 0, 1)
const hour = 3_600_000
const path = '/v1/uploads/up_0123456789abcdefghijklmnop/file'

function rejection(check: () => void): string {
  try {
    check()
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('invalid_token')
    return (error as DomainError).message
  }
  throw new Error('the signed URL was accepted')
}

describe('signed URLs', () => {
  const query = signPath(secret, 'PUT', path, now + hour)

  it('carries the expiry and a base64url signature, and verifies in every query form', () => {
    const params = new URLSearchParams(query)
    expect(params.get('expires')).toBe(String(now + hour))
    expect(params.get('sig')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(() => verifySignedPath(secret, 'PUT', path, query, now)).not.toThrow()
    expect(() => verifySignedPath(secret, 'PUT', path, `?${query}`, now)).not.toThrow()
    expect(() => verifySignedPath(secret, 'PUT', path, params, now + hour - 1)).not.toThrow()
    expect(() => verifySignedPath(secret, 'PUT', path, Object.fromEntries(params), now)).not.toThrow()
  })

  it('expires at the signed instant', () => {
    expect(rejection(() => verifySignedPath(secret, 'PUT', path, query, now + hour))).toBe(
      'The signed URL has expired.',
    )
    expect(rejection(() => verifySignedPath(secret, 'PUT', path, query, now + 2 * hour))).toBe(
      'The signed URL has expired.',
    )
  })

  it('refuses a tampered path, method, expiry or signature, and another secret', () => {
    const params = new URLSearchParams(query)
    const sig = params.get('sig') ?? ''
    const mismatch = 'The URL signature does not match this request.'
    expect(rejection(() => verifySignedPath(secret, 'PUT', `${path}x`, query, now))).toBe(mismatch)
    expect(rejection(() => verifySignedPath(secret, 'PUT', path.replace('up_0', 'up_1'), query, now))).toBe(
      mismatch,
    )
    expect(rejection(() => verifySignedPath(secret, 'GET', path, query, now))).toBe(mismatch)
    const later = new URLSearchParams({ expires: String(now + 100 * hour), sig })
    expect(rejection(() => verifySignedPath(secret, 'PUT', path, later, now))).toBe(mismatch)
    const flipped = new URLSearchParams({
      expires: String(now + hour),
      sig: `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`,
    })
    expect(rejection(() => verifySignedPath(secret, 'PUT', path, flipped, now))).toBe(mismatch)
    expect(rejection(() => verifySignedPath(`${secret}!`, 'PUT', path, query, now))).toBe(mismatch)
  })

  it('refuses a missing, repeated or malformed field without comparing anything', () => {
    const params = new URLSearchParams(query)
    const expires = params.get('expires') ?? ''
    const sig = params.get('sig') ?? ''
    const malformed = [
      '',
      `expires=${expires}`,
      `sig=${sig}`,
      `${query}&sig=${sig}`,
      `expires=${expires}&sig=${sig.slice(1)}`,
      `expires=${expires}&sig=${sig}=`,
      `expires=-1&sig=${sig}`,
      `expires=1e15&sig=${sig}`,
    ]
    for (const bad of malformed) {
      expect(
        rejection(() => verifySignedPath(secret, 'PUT', path, bad, now)),
        bad,
      ).toBe('The URL has no valid signature.')
    }
    expect(
      rejection(() => verifySignedPath(secret, 'PUT', path, { expires: [expires, expires], sig }, now)),
    ).toBe('The URL has no valid signature.')
  })

  it('refuses to sign or verify with a secret shorter than 32 bytes', () => {
    expect(() => signPath('short', 'GET', path, now)).toThrow(/at least 32 bytes/)
    expect(() => verifySignedPath('', 'GET', path, query, now)).toThrow(/at least 32 bytes/)
  })

  it('gives uploads one hour, and downloads at most 24 hours but never past the outputs', () => {
    expect(uploadUrlExpiresAt(now)).toBe(now + hour)
    expect(downloadUrlExpiresAt(now, now + 72 * hour)).toBe(now + 24 * hour)
    expect(downloadUrlExpiresAt(now, now + 2 * hour)).toBe(now + 2 * hour)
  })
})
