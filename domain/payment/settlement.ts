// What the account must reflect of one linked payment: its lot granted, the credits taken back for
// refunds (their share) or a lost dispute (all that remains), and a hold while a dispute is open. The
// account applies it as one decision (SettlePayment), idempotently, so it can be applied again after
// every new fact about the payment, in any order.
import type { PaymentSettlement } from '../account/commands.ts'
import { type PaymentState, refundedCents } from './state.ts'

export function settlementOf(paymentRef: string, state: PaymentState): PaymentSettlement | null {
  const link = state.link
  if (!link) return null
  const lost = [...state.disputes].find(([, status]) => status === 'lost')
  const refunded = link.amountCents > 0 ? refundedCents(state) / link.amountCents : 0
  const clawBackTarget = lost ? link.credits : Math.min(link.credits, Math.round(link.credits * refunded))
  return {
    paymentRef,
    lot: {
      lotId: link.lotId,
      kind: link.lotKind,
      credits: link.credits,
      expiresAt: link.expiresAt,
      reason: link.reason,
    },
    clawBackTarget,
    clawBackReason: lost ? `dispute ${lost[0]} lost` : 'payment refunded',
    disputes: [...state.disputes].map(([disputeId, status]) => ({ disputeId, open: status === 'open' })),
  }
}
