// Issue 20 items 6 and 7 as specifications: a payment's stream records what the processor reported
// (linked once, disputes forward only, refunds once), and the account settles a payment in one
// decision that only moves forward, so facts may arrive in any order and settle more than once.
import { describe, expect, it } from 'vitest'
import { accountDecider, paymentDecider } from '../../app/deciders.ts'
import type { AccountCommand, PaymentSettlement } from '../../domain/account/commands.ts'
import type { AccountEvent } from '../../domain/account/events.ts'
import type { PaymentCommand } from '../../domain/payment/decide.ts'
import type { PaymentEvent } from '../../domain/payment/events.ts'
import { settlementOf } from '../../domain/payment/settlement.ts'
import { evolvePayment, initialPaymentState, refundedCents } from '../../domain/payment/state.ts'
import { specFor } from '../support/given-when-then.ts'
import { accountId, day, history, iso, open, sealed, t0 } from './account-fixtures.ts'

const givenPayment = specFor(paymentDecider)
const given = specFor(accountDecider)
const pi = 'pi_1'

const link = (lotId = 'lot_pi_1', credits = 1500, amountCents = 1200): PaymentCommand => ({
  type: 'LinkPayment',
  data: {
    paymentRef: pi,
    accountId: 'acct_test',
    lotId,
    lotKind: 'subscription',
    credits,
    expiresAt: t0 + 60 * day,
    reason: 'bundle bundle_monthly_1500',
    amountCents,
    now: t0,
  },
})
const dispute = (disputeId: string, status: 'open' | 'won' | 'lost'): PaymentCommand => ({
  type: 'RecordDispute',
  data: { paymentRef: pi, disputeId, status, now: t0 },
})
const chargeRefunded = (chargeId: string, cents: number): PaymentCommand => ({
  type: 'RecordRefund',
  data: { paymentRef: pi, chargeId, refundId: null, cents, now: t0 },
})
const refundCreated = (refundId: string, cents: number): PaymentCommand => ({
  type: 'RecordRefund',
  data: { paymentRef: pi, chargeId: null, refundId, cents, now: t0 },
})

function payment(commands: PaymentCommand[]): PaymentEvent[] {
  let state = initialPaymentState()
  const events: PaymentEvent[] = []
  for (const command of commands)
    for (const event of paymentDecider.decide(command, state)) {
      state = evolvePayment(state, event)
      events.push(event)
    }
  return events
}
const stateOf = (events: PaymentEvent[]) => events.reduce(evolvePayment, initialPaymentState())

describe('payment: what the processor reported', () => {
  it('a payment is linked to one lot, whichever event reported it first', () => {
    givenPayment(payment([link()]))
      .when(link('lot_other'))
      .thenNothing()
  })

  it('a dispute moves forward only: a late report of it as open changes nothing', () => {
    givenPayment(payment([dispute('dp_1', 'open')]))
      .when(dispute('dp_1', 'lost'))
      .then([
        {
          type: 'PaymentDisputeClosed',
          data: { paymentRef: pi, disputeId: 'dp_1', outcome: 'lost', at: iso(t0) },
        },
      ])
    givenPayment(payment([dispute('dp_1', 'lost')]))
      .when(dispute('dp_1', 'open'))
      .thenNothing()
  })

  it('a refund counts once; a charge running total only grows; the two views of the same money are not added', () => {
    const recorded = payment([refundCreated('re_1', 600), chargeRefunded('ch_1', 600)])
    givenPayment(recorded).when(refundCreated('re_1', 600)).thenNothing()
    givenPayment(recorded).when(chargeRefunded('ch_1', 300)).thenNothing()
    expect(refundedCents(stateOf(recorded))).toBe(600)
    expect(refundedCents(stateOf([...recorded, ...payment([refundCreated('re_2', 300)])]))).toBe(900)
    expect(refundedCents(stateOf([...recorded, ...payment([chargeRefunded('ch_1', 1000)])]))).toBe(1000)
  })

  it('nothing is settled before the payment is linked; then refunds take their share and a lost dispute all', () => {
    expect(settlementOf(pi, stateOf(payment([dispute('dp_1', 'open')])))).toBeNull()
    expect(settlementOf(pi, stateOf(payment([refundCreated('re_1', 300), link()])))).toMatchObject({
      clawBackTarget: 375,
      clawBackReason: 'payment refunded',
      disputes: [],
    })
    expect(settlementOf(pi, stateOf(payment([link(), dispute('dp_1', 'lost')])))).toMatchObject({
      clawBackTarget: 1500,
      clawBackReason: 'dispute dp_1 lost',
      disputes: [{ disputeId: 'dp_1', open: false }],
    })
  })
})

const settle = (s: Partial<PaymentSettlement> = {}, now = t0): AccountCommand => ({
  type: 'SettlePayment',
  data: {
    paymentRef: pi,
    lot: {
      lotId: 'lot_pi_1',
      kind: 'subscription',
      credits: 1500,
      expiresAt: t0 + 60 * day,
      reason: 'bundle bundle_monthly_1500',
    },
    clawBackTarget: 0,
    clawBackReason: 'payment refunded',
    disputes: [],
    ...s,
    now,
  },
})

describe('account: settling a payment', () => {
  const grantOfPayment = (past: AccountEvent[], now = t0) =>
    sealed(past, 'CreditsGranted', {
      accountId,
      lotId: 'lot_pi_1',
      lotKind: 'subscription',
      credits: 1500,
      expiresAt: iso(t0 + 60 * day),
      reason: 'bundle bundle_monthly_1500',
      paymentRef: pi,
      at: iso(now),
    })
  const clawbackOf = (past: AccountEvent[], amount: number, reason = 'payment refunded') =>
    sealed(past, 'CreditsClawedBack', {
      accountId,
      lotId: 'lot_pi_1',
      amount,
      reverses: pi,
      reason,
      at: iso(t0),
    })
  const hold = (type: 'AccountFrozen' | 'AccountUnfrozen', disputeId: string): AccountEvent => ({
    type,
    data: { accountId, disputeId, at: iso(t0) },
  })

  it('grants the lot once, named by its payment', () => {
    const opened = history([open(0)])
    given(opened)
      .when(settle())
      .then([grantOfPayment(opened)])
    given(history([open(0), settle()]))
      .when(settle())
      .thenNothing()
  })

  it('a refund recorded before the grant is clawed back in the same decision, on the hash chain', () => {
    const opened = history([open(0)])
    const granted = grantOfPayment(opened)
    given(opened)
      .when(settle({ clawBackTarget: 375 }))
      .then([granted, clawbackOf([...opened, granted], 375)])
  })

  it('claws back up to the target only; an older settlement with a lower target changes nothing', () => {
    const half = history([open(0), settle({ clawBackTarget: 750 })])
    given(half)
      .when(settle({ clawBackTarget: 375 }))
      .thenNothing()
    given(half)
      .when(settle({ clawBackTarget: 1125 }))
      .then([clawbackOf(half, 375)])
  })

  it('an open dispute holds the account; closed, it lets go, and a crossing report of it as open cannot hold again', () => {
    const opened = history([open(0)])
    const granted = grantOfPayment(opened)
    given(opened)
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: true }] }))
      .then([granted, hold('AccountFrozen', 'dp_1')])
    const held = history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: true }] })])
    const lost = settle({
      clawBackTarget: 1500,
      clawBackReason: 'dispute dp_1 lost',
      disputes: [{ disputeId: 'dp_1', open: false }],
    })
    given(held)
      .when(lost)
      .then([clawbackOf(held, 1500, 'dispute dp_1 lost'), hold('AccountUnfrozen', 'dp_1')])
    const closed = history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: true }] }), lost])
    given(closed)
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: true }] }))
      .thenNothing()
    given(closed)
      .when({ type: 'Freeze', data: { disputeId: 'dp_1', now: t0 } })
      .thenNothing()
  })

  it('a dispute that ended before its payment was linked never holds the account', () => {
    const opened = history([open(0)])
    given(opened)
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: false }] }))
      .then([grantOfPayment(opened), hold('AccountUnfrozen', 'dp_1')])
    given(history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: false }] })]))
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: true }] }))
      .thenNothing()
  })

  it('a lot that would already have expired is not granted', () => {
    given(history([open(0)]))
      .when(settle({}, t0 + 61 * day))
      .thenNothing()
  })
})
