// The delivery rules both dispatch adapters share, so a job is retried and dead-lettered the same way
// whichever bus carries it.

export interface RetryPolicy {
  /** Deliveries that run the handler; after the last one fails, the job is dead-lettered. */
  maxDeliver: number
  /** Delay before the first redelivery; later ones wait proportionally longer. */
  retryDelayMs: number
}

export const defaultRetryPolicy: RetryPolicy = { maxDeliver: 3, retryDelayMs: 1_000 }

/**
 * Deliveries past maxDeliver never run the handler again; they only retry the dead letter (its call or
 * its publish failed, or the worker died during the last attempt). This many are allowed before the bus
 * gives up on the message.
 */
export const deadLetterRetries = 3

/** Linear back-off: a job failing for a transient reason gets more room on each try. */
export function redeliveryDelayMs(policy: RetryPolicy, attempt: number): number {
  return policy.retryDelayMs * attempt
}

/** True when this delivery should go straight to the dead letter instead of the handler. */
export function isExhausted(policy: RetryPolicy, deliveryCount: number): boolean {
  return deliveryCount > policy.maxDeliver
}

/** Handler runs a job has had by the time it is dead-lettered. */
export function attemptsMade(policy: RetryPolicy, deliveryCount: number): number {
  return Math.min(deliveryCount, policy.maxDeliver)
}
