// Random histories of grants, admissions, charges, refunds, expiries, disputes, clawbacks, payment
// settlements and orphaned admissions released, at random times. After every step the account must
// satisfy the money invariants, checked against the events themselves rather than the decider's own
// bookkeeping.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { decideAccount } from '../../domain/account/decide.ts'
import type { AccountEvent } from '../../domain/account/events.ts'
import {
  type AccountState,
  balanceAt,
  evolveAccount,
  heldCredits,
  initialAccountState,
} from '../../domain/account/state.ts'
import { isDomainError } from '../../domain/errors.ts'
import { day, hour, open, splitTool, t0 } from './account-fixtures.ts'

type Step =
  | { kind: 'grant'; credits: number; lifetimeDays: number }
  | { kind: 'admit' }
  | { kind: 'charge'; price: number }
  | { kind: 'finish'; outcome: 'succeeded' | 'failed' | 'canceled' }
  | { kind: 'expire' }
  | { kind: 'freeze' }
  | { kind: 'unfreeze' }
  | { kind: 'clawback'; amount: number | null }
  | { kind: 'release' }
  | { kind: 'settle'; payment: number; target: number; dispute: 'open' | 'won' | 'lost' | null }

const stepArb: fc.Arbitrary<{ step: Step; advanceMs: number }> = fc.record({
  advanceMs: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 6 * hour }),
    fc.integer({ min: 1, max: 40 * day }),
  ),
  step: fc.oneof(
    fc.record({
      kind: fc.constant('grant' as const),
      credits: fc.integer({ min: 1, max: 50 }),
      lifetimeDays: fc.integer({ min: 1, max: 60 }),
    }),
    fc.constant({ kind: 'admit' as const }),
    fc.record({ kind: fc.constant('charge' as const), price: fc.integer({ min: 0, max: 40 }) }),
    fc.record({
      kind: fc.constant('finish' as const),
      outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'canceled' as const),
    }),
    fc.constant({ kind: 'expire' as const }),
    fc.constant({ kind: 'freeze' as const }),
    fc.constant({ kind: 'unfreeze' as const }),
    fc.record({
      kind: fc.constant('clawback' as const),
      amount: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    }),
    fc.constant({ kind: 'release' as const }),
    fc.record({
      kind: fc.constant('settle' as const),
      payment: fc.integer({ min: 0, max: 2 }),
      target: fc.integer({ min: 0, max: 40 }),
      dispute: fc.constantFrom('open' as const, 'won' as const, 'lost' as const, null),
    }),
  ),
})

interface Ledger {
  /** Each admitted job's hold. */
  holds: Map<string, number>
  granted: Map<string, number>
  grantedAt: Map<string, number>
  expired: Set<string>
  expiresAt: Map<string, number>
  flows: Map<string, number> // net credits moved out of each lot by charges, refunds, expiries, clawbacks
  charged: Map<string, number>
  refunded: Map<string, number>
  outcomes: Map<string, string>
}

function commandFor(step: Step, state: AccountState, now: number, counter: number): AccountCommand | null {
  const active = [...state.activeJobIds]
  const paymentRefs = [...state.lots.values()]
    .map((lot) => lot.paymentRef)
    .filter((ref): ref is string => ref !== null)
  switch (step.kind) {
    case 'grant':
      return {
        type: 'GrantCredits',
        data: {
          lotId: `lot_${counter}`,
          kind: 'pack',
          credits: step.credits,
          expiresAt: now + step.lifetimeDays * day,
          reason: 'pack',
          paymentRef: `pay_${counter}`,
          now,
        },
      }
    case 'admit':
      return {
        type: 'AdmitJob',
        data: {
          jobId: `j${counter}`,
          tool: splitTool,
          idempotencyKey: null,
          requestHash: null,
          policy: { maxActiveJobs: 3, forgottenKeyMs: day },
          now,
        },
      }
    case 'charge':
      return active[0]
        ? { type: 'ChargeJob', data: { jobId: active[0], units: 1, price: step.price, now } }
        : null
    case 'finish':
      return active[0] ? { type: 'FinishJob', data: { jobId: active[0], outcome: step.outcome, now } } : null
    case 'expire':
      return { type: 'ExpireLots', data: { now } }
    case 'freeze':
      return { type: 'Freeze', data: { disputeId: 'dp', now } }
    case 'unfreeze':
      return { type: 'Unfreeze', data: { disputeId: 'dp', now } }
    case 'clawback':
      return paymentRefs.length > 0
        ? {
            type: 'ClawBack',
            data: {
              paymentRef: paymentRefs[counter % paymentRefs.length]!,
              amount: step.amount,
              reason: 'dispute_lost',
              now,
            },
          }
        : null
    case 'release':
      return active[0] ? { type: 'ReleaseOrphanedAdmission', data: { jobId: active[0], now } } : null
    case 'settle':
      return {
        type: 'SettlePayment',
        data: {
          paymentRef: `pay_s${step.payment}`,
          lot: {
            lotId: `lot_s${step.payment}`,
            kind: 'pack',
            credits: 30,
            expiresAt: now + 30 * day,
            reason: 'pack',
          },
          clawBackTarget: step.target,
          clawBackReason: 'payment refunded',
          disputes: step.dispute ? [{ disputeId: `dp_s${step.payment}`, open: step.dispute === 'open' }] : [],
          now,
        },
      }
  }
}

/** The spending order, recomputed from the ledger alone: expires first, then granted first, then lot id. */
function checkSpendingOrder(
  ledger: Ledger,
  event: Extract<AccountEvent, { type: 'JobCharged' }>,
  now: number,
): void {
  const remaining = (lotId: string) => ledger.granted.get(lotId)! - (ledger.flows.get(lotId) ?? 0)
  const order = [...ledger.granted.keys()]
    .filter(
      (lotId) => !ledger.expired.has(lotId) && ledger.expiresAt.get(lotId)! > now && remaining(lotId) > 0,
    )
    .sort(
      (a, b) =>
        ledger.expiresAt.get(a)! - ledger.expiresAt.get(b)! ||
        ledger.grantedAt.get(a)! - ledger.grantedAt.get(b)! ||
        (a < b ? -1 : 1),
    )
  const allocations = event.data.allocations
  expect(allocations.map((a) => a.lotId)).toEqual(order.slice(0, allocations.length))
  allocations.forEach((allocation, i) => {
    const lotId = order[i]!
    if (i < allocations.length - 1) expect(allocation.amount).toBe(remaining(lotId))
    expect(allocation.amount).toBeLessThanOrEqual(remaining(lotId))
  })
  expect(allocations.reduce((sum, a) => sum + a.amount, 0)).toBe(event.data.amount)
}

function apply(ledger: Ledger, event: AccountEvent, now: number): void {
  const move = (lotId: string, amount: number) =>
    ledger.flows.set(lotId, (ledger.flows.get(lotId) ?? 0) + amount)
  switch (event.type) {
    case 'JobAdmitted':
      ledger.holds.set(event.data.jobId, event.data.hold)
      break
    case 'CreditsGranted':
      ledger.granted.set(event.data.lotId, event.data.credits)
      ledger.expiresAt.set(event.data.lotId, Date.parse(event.data.expiresAt))
      ledger.grantedAt.set(event.data.lotId, Date.parse(event.data.at))
      break
    case 'JobCharged':
      expect(ledger.charged.has(event.data.jobId)).toBe(false)
      // A released admission is never charged (issue 20 item 8).
      expect(ledger.outcomes.has(event.data.jobId)).toBe(false)
      checkSpendingOrder(ledger, event, now)
      for (const a of event.data.allocations) {
        expect(ledger.expiresAt.get(a.lotId)!).toBeGreaterThan(now)
        move(a.lotId, a.amount)
      }
      ledger.charged.set(event.data.jobId, event.data.amount)
      break
    case 'JobRefunded':
      expect(ledger.refunded.has(event.data.jobId)).toBe(false)
      expect(event.data.amount).toBeLessThanOrEqual(ledger.charged.get(event.data.jobId) ?? 0)
      for (const a of event.data.allocations) move(a.lotId, -a.amount)
      ledger.refunded.set(event.data.jobId, event.data.amount)
      break
    case 'LotExpired':
      expect(ledger.expired.has(event.data.lotId)).toBe(false)
      expect(event.data.amount).toBe(
        ledger.granted.get(event.data.lotId)! - (ledger.flows.get(event.data.lotId) ?? 0),
      )
      ledger.expired.add(event.data.lotId)
      move(event.data.lotId, event.data.amount)
      break
    case 'CreditsClawedBack':
      expect(event.data.reverses).toMatch(/^pay_/)
      move(event.data.lotId, event.data.amount)
      break
    case 'JobReleased':
      ledger.outcomes.set(event.data.jobId, event.data.outcome)
      break
    default:
      break
  }
}

function checkInvariants(state: AccountState, ledger: Ledger, now: number): void {
  let live = 0
  for (const [lotId, granted] of ledger.granted) {
    const remaining = granted - (ledger.flows.get(lotId) ?? 0)
    expect(remaining).toBeGreaterThanOrEqual(0)
    expect(state.lots.get(lotId)!.remaining).toBe(remaining)
    if (!ledger.expired.has(lotId) && ledger.expiresAt.get(lotId)! > now) live += remaining
  }
  expect(balanceAt(state, now)).toBe(live)
  expect(balanceAt(state, now)).toBeGreaterThanOrEqual(0)
  // Held: admitted, neither charged nor released yet. The total kept beside the state, one counted
  // afresh on a copy (a snapshot), and the total without one job all agree with the events.
  let held = 0
  for (const [jobId, hold] of ledger.holds)
    if (!ledger.charged.has(jobId) && !ledger.outcomes.has(jobId)) held += hold
  expect(heldCredits(state)).toBe(held)
  expect(heldCredits(structuredClone(state))).toBe(held)
  const [someJob, itsHold] = [...ledger.holds].at(-1) ?? ['none', 0]
  const stillHeld = !ledger.charged.has(someJob) && !ledger.outcomes.has(someJob)
  expect(heldCredits(state, someJob)).toBe(held - (stillHeld ? itsHold : 0))
  for (const [jobId, outcome] of ledger.outcomes) {
    const charged = ledger.charged.get(jobId) ?? 0
    const refunded = ledger.refunded.get(jobId) ?? 0
    if (outcome === 'succeeded') expect(refunded).toBe(0)
    else expect(charged - refunded).toBe(0)
  }
}

const runs = Number(process.env.PROPERTY_RUNS ?? 200)
const stepsPerRun = 60

describe('account decider under random histories', () => {
  it(`keeps the money invariants over ${runs * stepsPerRun} random steps`, () => {
    let steps = 0
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: stepsPerRun, maxLength: stepsPerRun }), (script) => {
        let state = initialAccountState()
        let now = t0
        const ledger: Ledger = {
          holds: new Map(),
          granted: new Map(),
          grantedAt: new Map(),
          expired: new Set(),
          expiresAt: new Map(),
          flows: new Map(),
          charged: new Map(),
          refunded: new Map(),
          outcomes: new Map(),
        }
        const opening = decideAccount(open(20, now), state)
        for (const event of opening) {
          apply(ledger, event, now)
          state = evolveAccount(state, event)
        }
        script.forEach(({ step, advanceMs }, counter) => {
          now += advanceMs
          steps++
          const command = commandFor(step, state, now, counter)
          if (!command) return
          let events: AccountEvent[]
          try {
            events = decideAccount(command, state)
          } catch (error) {
            if (!isDomainError(error)) throw error
            return
          }
          for (const event of events) {
            apply(ledger, event, now)
            state = evolveAccount(state, event)
          }
          checkInvariants(state, ledger, now)
        })
      }),
      {
        numRuns: runs,
        seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined,
        verbose: 1,
      },
    )
    expect(steps).toBeGreaterThanOrEqual(10_000)
  })
})
