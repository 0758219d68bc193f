// What the service knows of one payment of the processor, in the payment's own stream: which account
// and lot it paid for (once, whichever event reported it first), and the disputes and refunds the
// processor reported against it, whether they arrived before the payment was linked or after.
import type { LotKind } from '../account/events.ts'

export type DisputeStatus = 'open' | 'won' | 'lost'

export type PaymentEvent =
  | {
      type: 'PaymentLinked'
      data: {
        paymentRef: string
        accountId: string
        lotId: string
        /** What the payment buys; absent on links recorded before lots were granted from them. */
        lotKind?: LotKind
        credits: number
        expiresAt?: string
        reason?: string
        amountCents: number
        at: string
      }
    }
  | { type: 'PaymentDisputed'; data: { paymentRef: string; disputeId: string; at: string } }
  | {
      type: 'PaymentDisputeClosed'
      data: { paymentRef: string; disputeId: string; outcome: 'won' | 'lost'; at: string }
    }
  | {
      /**
       * Money returned. The processor reports it two ways: per charge as a running total
       * (`chargeId`, `cents` = all refunded from that charge so far), and per refund (`refundId`,
       * `cents` = that refund). The two may describe the same refunds; see refundedCents.
       */
      type: 'PaymentRefunded'
      data: {
        paymentRef: string
        chargeId: string | null
        refundId: string | null
        cents: number
        at: string
      }
    }

export const paymentStream = (paymentRef: string) => `payment-${paymentRef}`

/** Processor events already handled: a replayed webhook finds its stream and does nothing. */
export const webhookStream = (eventId: string) => `webhook-${eventId}`
