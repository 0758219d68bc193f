// The delivery log: one document per (event, endpoint) in the read store every process shares. It is
// the dispatcher's durable queue as well as what the account reads: a delivery is written `pending`
// before the dispatcher's checkpoint moves past its event, and stays there until it is delivered or
// given up, so a process that dies loses none. Each update bumps the document's version (`position`).

import type { WebhookEventType } from '../../domain/webhook/events.ts'
import type { Doc, ReadStore } from '../../projections/read-store.ts'

export const deliveriesCollection = 'webhook_deliveries'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'canceled'

export interface DeliveryDoc extends Doc {
  /** The message id (`webhook-id`): the same for every attempt, so receivers can drop repeats. */
  messageId: string
  endpointId: string
  accountId: string
  type: WebhookEventType
  /** The JSON body sent, exactly as signed. */
  payload: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number
  lastStatusCode: number | null
  lastError: string | null
  lastAttemptAt: number | null
  createdAt: number
}

export async function deliveryDocs(reads: ReadStore) {
  await reads.ensureIndexes(deliveriesCollection, [
    ['status', 'nextAttemptAt'],
    ['endpointId', 'createdAt'],
  ])
  return reads.collection<DeliveryDoc>(deliveriesCollection)
}

/** The newest deliveries to an endpoint. */
export async function listDeliveries(
  reads: ReadStore,
  endpointId: string,
  limit = 50,
): Promise<DeliveryDoc[]> {
  const docs = await deliveryDocs(reads)
  return docs.find({ where: { endpointId }, orderBy: { field: 'createdAt', direction: 'desc' }, limit })
}

/** Sends a delivery again by hand: due now, with a fresh allowance of attempts. */
export async function redeliver(
  reads: ReadStore,
  endpointId: string,
  deliveryId: string,
  now: number,
): Promise<DeliveryDoc | null> {
  const docs = await deliveryDocs(reads)
  const doc = await docs.get(deliveryId)
  if (!doc || doc.endpointId !== endpointId) return null
  const again: DeliveryDoc = {
    ...doc,
    position: doc.position + 1,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
  }
  await docs.putGuarded([again])
  return again
}
