// Settling one payment of the processor on the account (the SettlePayment command): what
// domain/payment/settlement.ts says the account must reflect of everything known of the payment.
import { requireOpen } from './admission.ts'
import type { PaymentSettlement } from './commands.ts'
import type { AccountEvent } from './events.ts'
import { chain, unsealed } from './ledger-chain.ts'
import type { AccountState } from './state.ts'

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Brings the account in line with one payment, in one decision: its lot granted (once: the lot id
 * is the payment's), then clawed back up to the target, then held or released for its disputes.
 * Every part only moves forward, so applying an older settlement after a newer one changes nothing,
 * and a refund or dispute recorded before the grant takes effect in the same decision as the grant,
 * before a job can spend the credits.
 */
export function settlePayment(state: AccountState, d: PaymentSettlement & { now: number }): AccountEvent[] {
  requireOpen(state)
  const at = iso(d.now)
  const ledger: AccountEvent[] = []
  let lot = state.lots.get(d.lot.lotId)
  const { kind, expiresAt, reason, credits } = d.lot
  if (
    !lot &&
    kind !== null &&
    expiresAt !== null &&
    expiresAt > d.now &&
    Number.isSafeInteger(credits) &&
    credits > 0
  ) {
    ledger.push({
      type: 'CreditsGranted',
      data: {
        accountId: state.accountId,
        lotId: d.lot.lotId,
        lotKind: kind,
        credits,
        expiresAt: iso(expiresAt),
        reason: reason ?? 'payment',
        paymentRef: d.paymentRef,
        at,
        ...unsealed,
      },
    })
    lot = {
      id: d.lot.lotId,
      kind,
      credits,
      remaining: credits,
      expiresAt,
      createdAt: d.now,
      paymentRef: d.paymentRef,
      expired: false,
      clawedBack: 0,
    }
  }
  if (lot && lot.paymentRef === d.paymentRef && !lot.expired && lot.expiresAt > d.now) {
    const take = Math.min(lot.remaining, Math.min(d.clawBackTarget, lot.credits) - lot.clawedBack)
    if (take > 0)
      ledger.push({
        type: 'CreditsClawedBack',
        data: {
          accountId: state.accountId,
          lotId: lot.id,
          amount: take,
          reverses: d.paymentRef,
          reason: d.clawBackReason,
          at,
          ...unsealed,
        },
      })
  }
  const holds: AccountEvent[] = []
  for (const { disputeId, open } of d.disputes) {
    if (state.closedDisputes.has(disputeId)) continue
    if (open && !state.openDisputes.has(disputeId))
      holds.push({ type: 'AccountFrozen', data: { accountId: state.accountId, disputeId, at } })
    // Recorded even when the hold never began (the dispute ended before its payment was linked), so
    // a crossing report of it as open cannot start one afterwards.
    if (!open) holds.push({ type: 'AccountUnfrozen', data: { accountId: state.accountId, disputeId, at } })
  }
  return [...chain(state, ledger), ...holds]
}
