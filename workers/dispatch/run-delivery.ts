// One delivery of a job, decided the same way by every adapter: run the handler, or — when the job has
// used up its deliveries — dead-letter it. The adapter turns the outcome into an ack, a delayed
// redelivery or a termination on its own bus.
import type { ConsumeOptions, Delivery, JobMessage } from '../../domain/ports/dispatcher.ts'
import { attemptsMade, deadLetterRetries, isExhausted, type RetryPolicy } from './retry-policy.ts'

export type Outcome =
  /** The handler resolved. */
  | 'done'
  /** The handler or the dead letter failed; deliver again after a delay. */
  | 'retry'
  /** The job failed every allowed delivery and was dead-lettered. */
  | 'dead-lettered'
  /** Even dead-lettering kept failing; stop delivering the job. */
  | 'abandoned'

export interface DeliveryRun {
  policy: RetryPolicy
  options: ConsumeOptions
  job: JobMessage
  /** 1-based count of deliveries of this job, this one included. */
  deliveryCount: number
  working: Delivery['working']
  /** Keeps a copy of a dead job where operators can find it (the NATS dead-letter stream). */
  recordDeadLetter?: () => Promise<void>
}

export async function runDelivery(run: DeliveryRun): Promise<Outcome> {
  const { policy, options, job, deliveryCount } = run
  if (!isExhausted(policy, deliveryCount)) {
    try {
      await options.handle(job, { attempt: deliveryCount, working: run.working })
      return 'done'
    } catch {
      if (deliveryCount < policy.maxDeliver) return 'retry'
    }
  }
  try {
    await run.recordDeadLetter?.()
    await options.deadLetter(job, attemptsMade(policy, deliveryCount))
    return 'dead-lettered'
  } catch {
    return deliveryCount < policy.maxDeliver + deadLetterRetries ? 'retry' : 'abandoned'
  }
}
