// The pooled CSPRNG source: each byte is handed out once, callers get copies, and sizes past the
// pool are served whole.
import { describe, expect, it } from 'vitest'
import { pooledRandom } from '../../app/security/pooled-random.ts'

describe('pooledRandom', () => {
  it('hands out each pooled byte once, as copies of the requested size', () => {
    const random = pooledRandom(64)
    const draws = Array.from({ length: 40 }, (_, i) => random((i % 7) + 1))
    expect(draws.map((draw) => draw.length)).toEqual(draws.map((_, i) => (i % 7) + 1))
    // 16-byte draws from a fresh pool never repeat (a repeat would mean the pool was reused).
    const wide = pooledRandom(64)
    const seen = new Set(Array.from({ length: 200 }, () => wide(16).toString('hex')))
    expect(seen.size).toBe(200)
    // Changing a draw does not change the next one.
    const first = wide(8)
    first.fill(0)
    expect(wide(8).equals(Buffer.alloc(8))).toBe(false)
  })

  it('serves sizes larger than the pool directly', () => {
    const random = pooledRandom(16)
    const big = random(1000)
    expect(big.length).toBe(1000)
    expect(new Set(big).size).toBeGreaterThan(100)
  })
})
