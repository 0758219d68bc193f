// Request rate limits: token buckets refilled continuously, one per credential, one per client
// address, and one per client address for failed authentications (a brute-force of keys meets a
// 429 long before it could matter). Each limited answer names its policy in the IETF RateLimit and
// RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-11) and a 429 carries Retry-After.
import type { Config } from '../app/config.ts'
import { DomainError } from '../domain/errors.ts'

export interface BucketPolicy {
  /** The policy's name in the RateLimit fields. */
  name: string
  perSecond: number
  burst: number
}

/** Where a bucket stands after a request took from it: what the RateLimit field reports. */
export interface BucketState {
  policy: BucketPolicy
  /** Whole requests left now. */
  remaining: number
  /** Seconds until the bucket is full again. */
  resetSeconds: number
}

const maxBuckets = 100_000

export class RateLimiter {
  readonly policy: BucketPolicy
  readonly #buckets = new Map<string, { tokens: number; at: number }>()

  constructor(policy: BucketPolicy) {
    this.policy = policy
  }

  /** Takes one request from `key`'s bucket; throws `rate_limited` (with Retry-After) when it is empty. */
  take(key: string, now: number): BucketState {
    const bucket = this.#refilled(key, now)
    if (bucket.tokens < 1) throw this.#limited(bucket)
    bucket.tokens -= 1
    return this.#state(bucket)
  }

  /** Throws `rate_limited` when `key`'s bucket is empty, without taking from it. */
  check(key: string, now: number): void {
    const bucket = this.#refilled(key, now)
    if (bucket.tokens < 1) throw this.#limited(bucket)
  }

  #limited(bucket: { tokens: number }): DomainError {
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.policy.perSecond))
    const state: BucketState = { policy: this.policy, remaining: 0, resetSeconds: retryAfterSeconds }
    return new DomainError(
      'rate_limited',
      `More than ${this.policy.perSecond} requests per second (${this.policy.name} limit); slow down.`,
      { retryAfterSeconds, details: { rateLimit: state } },
    )
  }

  #refilled(key: string, now: number): { tokens: number; at: number } {
    let bucket = this.#buckets.get(key)
    if (!bucket) {
      // Forgetting every bucket at once only ever refills them: memory stays bounded under a flood of keys.
      if (this.#buckets.size >= maxBuckets) this.#buckets.clear()
      bucket = { tokens: this.policy.burst, at: now }
      this.#buckets.set(key, bucket)
    }
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - bucket.at)
    bucket.tokens = Math.min(this.policy.burst, bucket.tokens + (elapsedMs / 1000) * this.policy.perSecond)
    bucket.at = Math.max(bucket.at, now)
    return bucket
  }

  #state(bucket: { tokens: number }): BucketState {
    return {
      policy: this.policy,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.policy.burst - bucket.tokens) / this.policy.perSecond),
    }
  }
}

/** Every limit a request can meet, shared by REST, MCP and the console. */
export class RequestLimits {
  readonly perCredential: RateLimiter
  readonly perAddress: RateLimiter
  readonly authFailures: RateLimiter

  constructor(limits: {
    perCredential: { perSecond: number; burst: number }
    perAddress: { perSecond: number; burst: number }
    authFailures: { perSecond: number; burst: number }
  }) {
    this.perCredential = new RateLimiter({ name: 'credential', ...limits.perCredential })
    this.perAddress = new RateLimiter({ name: 'address', ...limits.perAddress })
    this.authFailures = new RateLimiter({ name: 'auth-failures', ...limits.authFailures })
  }

  static fromConfig(
    config: Pick<Config, 'rateLimit' | 'addressRateLimit' | 'authFailureLimit'>,
  ): RequestLimits {
    return new RequestLimits({
      perCredential: config.rateLimit,
      perAddress: config.addressRateLimit,
      authFailures: config.authFailureLimit,
    })
  }

  /** An authenticated request: one token from its credential's bucket and one from its address's. */
  admit(credentialId: string, address: string, now: number): BucketState[] {
    return [this.perCredential.take(credentialId, now), this.perAddress.take(address, now)]
  }
}

/** Window of a token bucket as a quota: the burst, refilled in full over this many seconds. */
const windowSeconds = (policy: BucketPolicy) => Math.max(1, Math.ceil(policy.burst / policy.perSecond))

/** A policy's item of RateLimit-Policy: fixed per policy, so made once. */
const policyFields = new WeakMap<BucketPolicy, string>()
function policyField(policy: BucketPolicy): string {
  let field = policyFields.get(policy)
  if (field === undefined) {
    field = `"${policy.name}";q=${policy.burst};w=${windowSeconds(policy)}`
    policyFields.set(policy, field)
  }
  return field
}

/** The RateLimit-Policy and RateLimit field values (structured-field lists, one item per policy). */
export function rateLimitFields(states: readonly BucketState[]): { policy: string; limit: string } {
  return {
    policy: states.map((s) => policyField(s.policy)).join(', '),
    limit: states.map((s) => `"${s.policy.name}";r=${s.remaining};t=${s.resetSeconds}`).join(', '),
  }
}

/** Sets RateLimit-Policy and RateLimit on a reply. */
export function setRateLimitFields(
  reply: { header(name: string, value: string): unknown },
  states: readonly BucketState[],
): void {
  const fields = rateLimitFields(states)
  reply.header('ratelimit-policy', fields.policy)
  reply.header('ratelimit', fields.limit)
}

/** The bucket a `rate_limited` error came from, to report it in the RateLimit fields of the 429. */
export function limitedBucket(error: unknown): BucketState | null {
  return error instanceof DomainError && error.code === 'rate_limited'
    ? ((error.details?.rateLimit as BucketState | undefined) ?? null)
    : null
}

/**
 * Admits an authenticated request: takes from its credential's and its address's buckets and reports
 * both in the RateLimit fields, or reports the empty one and throws `rate_limited` (429, Retry-After).
 */
export function admitRequest(
  limits: RequestLimits,
  reply: { header(name: string, value: string): unknown },
  credentialId: string,
  address: string,
  now: number,
): void {
  try {
    setRateLimitFields(reply, limits.admit(credentialId, address, now))
  } catch (error) {
    const state = limitedBucket(error)
    if (state) {
      setRateLimitFields(reply, [state])
      // Set here as well as by the error handler: the console's tRPC answers its errors itself.
      reply.header('retry-after', String(state.resetSeconds))
    }
    throw error
  }
}
