// Limits of the keyless upload PUT, taken before its body is read: a request rate per client
// address, one PUT at a time per upload (a second one can only race the first), and a few at a time
// per client address. Held until the PUT ends, however it ends.
import type { Config } from '../app/config.ts'
import { DomainError } from '../domain/errors.ts'
import { RateLimiter } from './rate-limit.ts'

export class SignedPutGate {
  readonly #limits: Config['signedPuts']
  readonly #rate: RateLimiter
  readonly #uploads = new Set<string>()
  readonly #addresses = new Map<string, number>()

  constructor(limits: Config['signedPuts']) {
    this.#limits = limits
    this.#rate = new RateLimiter({ name: 'upload-put', perSecond: limits.perSecond, burst: limits.burst })
  }

  /** Counts the request against the address's rate; throws rate_limited past it. */
  admitRequest(address: string, now: number): void {
    this.#rate.take(`put:${address}`, now)
  }

  /** Takes a place for one PUT's body; the returned function gives it back. */
  enter(uploadId: string, address: string): () => void {
    if (this.#uploads.has(uploadId))
      throw new DomainError(
        'rate_limited',
        'Another PUT to this upload URL is under way; wait for it to end.',
        {
          retryAfterSeconds: 5,
        },
      )
    const active = this.#addresses.get(address) ?? 0
    if (active >= this.#limits.concurrentPerAddress)
      throw new DomainError(
        'rate_limited',
        `At most ${this.#limits.concurrentPerAddress} uploads at a time from one address.`,
        { retryAfterSeconds: 5 },
      )
    this.#uploads.add(uploadId)
    this.#addresses.set(address, active + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      this.#uploads.delete(uploadId)
      const left = (this.#addresses.get(address) ?? 1) - 1
      if (left > 0) this.#addresses.set(address, left)
      else this.#addresses.delete(address)
    }
  }
}
