// Issue 20 items 6 and 7 as specifications: a payment's stream records what the processor reported
// (linked once, disputes forward only, refunds once), and the account settles a payment in one
// decision that only moves forward, so facts may arrive in any order and settle more than once.
import { describe, expect, it } from 'vitest'
import { accountDecider, paymentDecider } from '../../app/deciders.ts'
import type { AccountCommand, PaymentSettlement } from '../../domain/account/commands.ts'
import type { PaymentCommand } from '../../domain/payment/decide.ts'
import type { PaymentEvent } from '../../domain/payment/events.ts'
import { settlementOf } from '../../domain/payment/settlement.ts'
import { evolvePayment, initialPaymentState, refundedCents } from '../../domain/payment/state.ts'
import { specFor } from '../support/given-when-then.ts'
import { day, history, open, t0 } from './account-fixtures.ts'

const givenPayment = specFor(paymentDecider)
const givenAccount = specFor(accountDecider)
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
      .then([{ type: 'PaymentDisputeClosed', data: { disputeId: 'dp_1', outcome: 'lost' } }])
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
  it('grants the lot once, named by its payment', () => {
    const granted = history([open(0), settle()])
    expect(granted.at(-1)).toMatchObject({
      type: 'CreditsGranted',
      data: { lotId: 'lot_pi_1', credits: 1500, paymentRef: pi },
    })
    givenAccount(granted).when(settle()).thenNothing()
  })

  it('a refund recorded before the grant is clawed back in the same decision, on the hash chain', () => {
    givenAccount(history([open(0)]))
      .when(settle({ clawBackTarget: 375 }))
      .then((events) => {
        expect(events).toMatchObject([
          { type: 'CreditsGranted', data: { credits: 1500 } },
          { type: 'CreditsClawedBack', data: { amount: 375, reverses: pi } },
        ])
        const [grant, clawback] = events as { data: { hash: string; prevHash: string } }[]
        expect(clawback!.data.prevHash).toBe(grant!.data.hash)
      })
  })

  it('claws back up to the target only; an older settlement with a lower target changes nothing', () => {
    const half = history([open(0), settle({ clawBackTarget: 750 })])
    givenAccount(half)
      .when(settle({ clawBackTarget: 375 }))
      .thenNothing()
    givenAccount(half)
      .when(settle({ clawBackTarget: 1125 }))
      .then([{ type: 'CreditsClawedBack', data: { amount: 375 } }])
  })

  it('an open dispute holds the account; closed, it lets go, and a crossing report of it as open cannot hold again', () => {
    const held = history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: true }] })])
    expect(held.at(-1)).toMatchObject({ type: 'AccountFrozen', data: { disputeId: 'dp_1' } })
    const lost = settle({ clawBackTarget: 1500, disputes: [{ disputeId: 'dp_1', open: false }] })
    givenAccount(held)
      .when(lost)
      .then([{ type: 'CreditsClawedBack', data: { amount: 1500 } }, { type: 'AccountUnfrozen' }])
    const closed = history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: true }] }), lost])
    givenAccount(closed)
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: true }] }))
      .thenNothing()
    givenAccount(closed)
      .when({ type: 'Freeze', data: { disputeId: 'dp_1', now: t0 } })
      .thenNothing()
  })

  it('a dispute that ended before its payment was linked never holds the account', () => {
    const settled = history([open(0), settle({ disputes: [{ disputeId: 'dp_1', open: false }] })])
    expect(settled.map((e) => e.type)).toEqual(['AccountOpened', 'CreditsGranted', 'AccountUnfrozen'])
    givenAccount(settled)
      .when(settle({ disputes: [{ disputeId: 'dp_1', open: true }] }))
      .thenNothing()
  })

  it('a lot that would already have expired is not granted', () => {
    givenAccount(history([open(0)]))
      .when(settle({}, t0 + 61 * day))
      .thenNothing()
  })
})
