// The payment's rules: a payment is linked to one lot once, whichever event reports it first; a
// dispute only moves forward (open, then won or lost); a refund counts once. Facts that arrive
// before the link are kept, and take effect on the account when the link lands (settlement.ts).

import type { LotKind } from '../account/events.ts'
import type { Command } from '../command.ts'
import type { DisputeStatus, PaymentEvent } from './events.ts'
import type { PaymentState } from './state.ts'

export type PaymentCommand =
  | Command<
      'LinkPayment',
      {
        paymentRef: string
        accountId: string
        lotId: string
        lotKind: LotKind
        credits: number
        expiresAt: number
        reason: string
        amountCents: number
      }
    >
  | Command<'RecordDispute', { paymentRef: string; disputeId: string; status: DisputeStatus }>
  | Command<
      'RecordRefund',
      { paymentRef: string; chargeId: string | null; refundId: string | null; cents: number }
    >

export function decidePayment(command: PaymentCommand, state: PaymentState): PaymentEvent[] {
  const at = new Date(command.data.now).toISOString()
  switch (command.type) {
    case 'LinkPayment': {
      if (state.link) return []
      const { now: _, expiresAt, ...d } = command.data
      return [{ type: 'PaymentLinked', data: { ...d, expiresAt: new Date(expiresAt).toISOString(), at } }]
    }
    case 'RecordDispute': {
      const { paymentRef, disputeId, status } = command.data
      const known = state.disputes.get(disputeId)
      if (status === 'open')
        return known ? [] : [{ type: 'PaymentDisputed', data: { paymentRef, disputeId, at } }]
      if (known === 'won' || known === 'lost') return []
      return [{ type: 'PaymentDisputeClosed', data: { paymentRef, disputeId, outcome: status, at } }]
    }
    case 'RecordRefund': {
      const { paymentRef, chargeId, refundId, cents } = command.data
      if (!Number.isSafeInteger(cents) || cents <= 0) return []
      const newTotal = chargeId !== null && cents > (state.chargeRefunds.get(chargeId) ?? 0)
      const newRefund = refundId !== null && !state.refunds.has(refundId)
      if (!newTotal && !newRefund) return []
      return [{ type: 'PaymentRefunded', data: { paymentRef, chargeId, refundId, cents, at } }]
    }
  }
}
