// What a job did to the books, read straight from the event store: the truth the read models follow.
import { accountStream } from '../../../domain/account/events.ts'
import { jobStream } from '../../../domain/job/events.ts'
import type { EventStore } from '../../../domain/ports/event-store.ts'

export interface JobBooks {
  charges: number
  refunds: number
  charged: number
  refunded: number
  /** JobStarted events: one per run of the job. */
  starts: number
  finals: string[]
}

export async function jobBooks(store: EventStore, accountId: string, jobId: string): Promise<JobBooks> {
  const account = (await store.readStream(accountStream(accountId))).filter(
    (e) => (e.data as { jobId?: string }).jobId === jobId,
  )
  const amount = (e: { data: unknown }) => (e.data as { amount: number }).amount
  const charges = account.filter((e) => e.type === 'JobCharged')
  const refunds = account.filter((e) => e.type === 'JobRefunded')
  const job = await store.readStream(jobStream(jobId))
  return {
    charges: charges.length,
    refunds: refunds.length,
    charged: charges.reduce((sum, e) => sum + amount(e), 0),
    refunded: refunds.reduce((sum, e) => sum + amount(e), 0),
    starts: job.filter((e) => e.type === 'JobStarted').length,
    finals: job
      .filter((e) => ['JobSucceeded', 'JobFailed', 'JobCanceled'].includes(e.type))
      .map((e) => e.type),
  }
}
