// One payment's state, folded from its stream.
import type { LotKind } from '../account/events.ts'
import type { DisputeStatus, PaymentEvent } from './events.ts'

export interface PaymentLink {
  accountId: string
  lotId: string
  lotKind: LotKind | null
  credits: number
  expiresAt: number | null
  reason: string | null
  amountCents: number
}

export interface PaymentState {
  link: PaymentLink | null
  disputes: Map<string, DisputeStatus>
  /** Per charge, the largest running total of refunds it reported. */
  chargeRefunds: Map<string, number>
  /** Per refund, its amount. */
  refunds: Map<string, number>
}

export const initialPaymentState = (): PaymentState => ({
  link: null,
  disputes: new Map(),
  chargeRefunds: new Map(),
  refunds: new Map(),
})

export function evolvePayment(state: PaymentState, event: PaymentEvent): PaymentState {
  switch (event.type) {
    case 'PaymentLinked': {
      const d = event.data
      state.link = {
        accountId: d.accountId,
        lotId: d.lotId,
        lotKind: d.lotKind ?? null,
        credits: d.credits,
        expiresAt: d.expiresAt ? Date.parse(d.expiresAt) : null,
        reason: d.reason ?? null,
        amountCents: d.amountCents,
      }
      break
    }
    case 'PaymentDisputed':
      state.disputes.set(event.data.disputeId, 'open')
      break
    case 'PaymentDisputeClosed':
      state.disputes.set(event.data.disputeId, event.data.outcome)
      break
    case 'PaymentRefunded': {
      const { chargeId, refundId, cents } = event.data
      if (chargeId !== null)
        state.chargeRefunds.set(chargeId, Math.max(cents, state.chargeRefunds.get(chargeId) ?? 0))
      if (refundId !== null) state.refunds.set(refundId, cents)
      break
    }
  }
  return state
}

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0)

/**
 * How much of the payment went back. The charges' running totals and the single refunds count the
 * same money seen two ways, so the larger of the two sums is what is known to be refunded: the
 * running totals lag behind a refund reported only by itself, and vice versa.
 */
export const refundedCents = (state: PaymentState): number =>
  Math.max(sum(state.chargeRefunds.values()), sum(state.refunds.values()))
