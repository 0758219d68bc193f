// What the account is told, built from the event log: one message per event that matters, with an id
// derived from the log event's id, so a replay after a crash makes the same message (and receivers
// that keep the ids they saw drop the repeat).
import { createHash } from 'node:crypto'
import { jobStream } from '../../domain/job/events.ts'
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.ts'
import type { WebhookEventType } from '../../domain/webhook/events.ts'

export interface WebhookMessage {
  accountId: string
  type: WebhookEventType
  /** `msg_` and a digest of the log event's id. */
  messageId: string
  /** The JSON body: `{type, timestamp, data}` as Standard Webhooks suggests. */
  payload: string
}

const jobOutcomes: Record<string, WebhookEventType> = {
  JobSucceeded: 'job.succeeded',
  JobFailed: 'job.failed',
  JobCanceled: 'job.canceled',
  JobExpired: 'job.expired',
}

export const messageIdOf = (logEventId: string) =>
  `msg_${createHash('sha256').update(logEventId).digest('base64url').slice(0, 26)}`

/** What credits.low needs to know of an account, as of at least a given log position. */
export type CreditsOutlookSource = (
  accountId: string,
  position: number,
) => Promise<{ balance: number; mostUsedTool: string; price: number } | null>

/** The message an event of the log makes, or null when it makes none. */
export async function messageFor(
  store: EventStore,
  outlook: CreditsOutlookSource,
  event: RecordedEvent,
): Promise<WebhookMessage | null> {
  if (event.type === 'JobCharged') return creditsLowMessage(outlook, event)
  const type = jobOutcomes[event.type]
  if (!type) return null
  const data = event.data as { jobId: string; at: string; error?: unknown }
  const history = await store.readStream(jobStream(data.jobId))
  const created = history.find((e) => e.type === 'JobCreated')?.data as
    | { accountId: string; tool: string; at: string }
    | undefined
  if (!created) return null
  const measured = history.findLast((e) => e.type === 'JobMeasured')?.data as { credits: number } | undefined
  const succeeded = history.find((e) => e.type === 'JobSucceeded')?.data as
    | { creditsReturned?: number }
    | undefined
  const charged = succeeded ? (measured?.credits ?? 0) - (succeeded.creditsReturned ?? 0) : 0
  const job = {
    id: data.jobId,
    tool: created.tool,
    status: type.slice('job.'.length),
    credits_charged: charged,
    error: data.error ?? null,
    created_at: created.at,
    finished_at: data.at,
  }
  return {
    accountId: created.accountId,
    type,
    messageId: messageIdOf(event.id),
    payload: JSON.stringify({ type, timestamp: data.at, data: { job } }),
  }
}

/**
 * credits.low: this charge took the balance below the price of the account's most used tool. Told
 * once per crossing (the charge that crossed), not at every charge below it.
 */
async function creditsLowMessage(
  outlook: CreditsOutlookSource,
  event: RecordedEvent,
): Promise<WebhookMessage | null> {
  const data = event.data as { accountId: string; jobId: string; amount: number; at: string }
  const funds = await outlook(data.accountId, event.position)
  if (!funds || funds.balance >= funds.price || funds.balance + data.amount < funds.price) return null
  return {
    accountId: data.accountId,
    type: 'credits.low',
    messageId: messageIdOf(event.id),
    payload: JSON.stringify({
      type: 'credits.low',
      timestamp: data.at,
      data: {
        balance: funds.balance,
        threshold: funds.price,
        most_used_tool: funds.mostUsedTool,
        job_id: data.jobId,
      },
    }),
  }
}
