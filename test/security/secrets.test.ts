import { describe, expect, it } from 'vitest'
import { hashSecret, sameHash } from '../../app/security/secrets.ts'

describe('secret hashes', () => {
  it('are SHA-256 in lowercase hex', () => {
    // The FIPS 180-2 test vector for "abc".
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(hashSecret('kiln_sk_a')).not.toBe(hashSecret('kiln_sk_b'))
  })

  it('compare equal only when identical, whatever the lengths', () => {
    const hash = hashSecret('kiln_sk_secret')
    expect(sameHash(hash, hashSecret('kiln_sk_secret'))).toBe(true)
    expect(sameHash(hash, hashSecret('kiln_sk_secreT'))).toBe(false)
    expect(sameHash(hash, `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`)).toBe(false)
    expect(sameHash(hash, hash.slice(0, 32))).toBe(false)
    expect(sameHash(hash, '')).toBe(false)
  })
})
