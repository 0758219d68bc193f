// A job that gave up because the provider kept limiting requests fails with `rate_limited`, and its
// hint carries the provider's Retry-After. Admission reads that hint back to answer new jobs with
// 429 and a Retry-After while the limit lasts, so both sides share this one format.
import type { JobError } from '../errors.ts'

export function throttledJobError(provider: string, retryAfterSeconds: number): JobError {
  return {
    code: 'rate_limited',
    message: `The generation provider (${provider}) is limiting requests; nothing was generated and the charge was returned.`,
    hint: `Retry after ${retryAfterSeconds} s with a new idempotency key.`,
  }
}

/** The Retry-After seconds a throttled job's error carries, or null for any other error. */
export function throttleSecondsOf(error: JobError | null): number | null {
  if (error?.code !== 'rate_limited' || error.hint === null) return null
  const match = /^Retry after (\d+) s/.exec(error.hint)
  return match ? Number(match[1]) : null
}
