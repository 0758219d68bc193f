// Per-credential request rate limiting: a token bucket per key, refilled continuously.
import { DomainError } from '../domain/errors.ts'

export class RateLimiter {
  readonly #perSecond: number
  readonly #burst: number
  readonly #buckets = new Map<string, { tokens: number; at: number }>()

  constructor({ perSecond, burst }: { perSecond: number; burst: number }) {
    this.#perSecond = perSecond
    this.#burst = burst
  }

  take(key: string, now: number): void {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now }
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - bucket.at)
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (elapsedMs / 1000) * this.#perSecond)
    bucket.at = Math.max(bucket.at, now)
    if (bucket.tokens < 1) {
      this.#buckets.set(key, bucket)
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perSecond))
      throw new DomainError('rate_limited', `More than ${this.#perSecond} requests per second; slow down.`, {
        retryAfterSeconds,
      })
    }
    bucket.tokens -= 1
    this.#buckets.set(key, bucket)
    if (this.#buckets.size > 100_000) this.#buckets.clear()
  }
}
