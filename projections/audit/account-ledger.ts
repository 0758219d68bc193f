// One account's ledger, recomputed from its events by arithmetic of its own (not the domain's
// fold), checking every rule the ledger must keep as each event arrives.

import type { AccountEvent, Allocation } from '../../domain/account/events.ts'
import { genesisHash, ledgerHash } from '../../domain/account/ledger-hash.ts'
import { bySpendingOrder } from '../../domain/account/spending-order.ts'
import {
  type AccountState,
  balanceAt,
  evolveAccount,
  initialAccountState,
} from '../../domain/account/state.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import type { Report } from './violations.ts'

interface AuditedLot {
  id: string
  credits: number
  remaining: number
  expiresAt: number
  createdAt: number
  paymentRef: string | null
  charged: number
  refunded: number
  expired: number | null
  clawedBack: number
}

interface AuditedJob {
  released: boolean
  charged: number | null
  allocations: Allocation[]
  refunded: number
}

const ms = (iso: string) => Date.parse(iso)

export class AccountLedger {
  readonly stream: string
  readonly #report: Report
  readonly #lots = new Map<string, AuditedLot>()
  readonly #jobs = new Map<string, AuditedJob>()
  /** Payments that have granted a lot: a payment buys one lot, whichever events reported it. */
  readonly #paidLots = new Map<string, string>()
  #lastHash = genesisHash
  /** The domain's own fold, kept beside ours: the two must agree. */
  #state: AccountState = initialAccountState()

  constructor(stream: string, report: Report) {
    this.stream = stream
    this.#report = report
  }

  apply(recorded: RecordedEvent): void {
    const event = { type: recorded.type, data: recorded.data } as AccountEvent
    const fail = (check: Parameters<Report>[0], message: string) =>
      this.#report(check, this.stream, recorded.position, message)
    if ('prevHash' in event.data) {
      const { prevHash, hash } = event.data
      if (prevHash !== this.#lastHash)
        fail(
          'hash-chain',
          `${event.type} does not follow the previous ledger event (prevHash ${prevHash.slice(0, 12)}…)`,
        )
      if (ledgerHash(event.type, event.data as unknown as Record<string, unknown>) !== hash)
        fail('hash-chain', `${event.type}'s hash does not match its content`)
      this.#lastHash = hash
    }
    switch (event.type) {
      case 'CreditsGranted': {
        const d = event.data
        if (this.#lots.has(d.lotId)) fail('lot-conservation', `lot ${d.lotId} granted twice`)
        const paidBefore = d.paymentRef === null ? undefined : this.#paidLots.get(d.paymentRef)
        if (paidBefore !== undefined)
          fail(
            'single-grant-per-payment',
            `payment ${d.paymentRef} granted lot ${d.lotId} after lot ${paidBefore}`,
          )
        else if (d.paymentRef !== null) this.#paidLots.set(d.paymentRef, d.lotId)
        if (!(d.credits > 0)) fail('non-negative', `lot ${d.lotId} granted ${d.credits} credits`)
        this.#lots.set(d.lotId, {
          id: d.lotId,
          credits: d.credits,
          remaining: d.credits,
          expiresAt: ms(d.expiresAt),
          createdAt: ms(d.at),
          paymentRef: d.paymentRef,
          charged: 0,
          refunded: 0,
          expired: null,
          clawedBack: 0,
        })
        break
      }
      case 'JobAdmitted':
        this.#jobs.set(event.data.jobId, { released: false, charged: null, allocations: [], refunded: 0 })
        break
      case 'JobReleased': {
        const job = this.#jobs.get(event.data.jobId)
        if (job) job.released = true
        break
      }
      case 'JobCharged':
        this.#charge(event.data, fail)
        break
      case 'JobRefunded':
        this.#refund(event.data, fail)
        break
      case 'LotExpired': {
        const lot = this.#lots.get(event.data.lotId)
        if (!lot) fail('single-expiry', `expiry of unknown lot ${event.data.lotId}`)
        else if (lot.expired !== null) fail('single-expiry', `lot ${lot.id} expired a second time`)
        else {
          if (event.data.amount !== lot.remaining)
            fail('single-expiry', `lot ${lot.id} expired ${event.data.amount} but ${lot.remaining} remained`)
          if (lot.expiresAt > ms(event.data.at))
            fail('lot-validity', `lot ${lot.id} expired before its expiry time`)
          lot.expired = event.data.amount
          lot.remaining -= event.data.amount
        }
        break
      }
      case 'CreditsClawedBack': {
        const d = event.data
        const lot = this.#lots.get(d.lotId)
        if (!lot) fail('clawback', `clawback from unknown lot ${d.lotId}`)
        else {
          if (d.amount > lot.remaining)
            fail('clawback', `clawback of ${d.amount} from lot ${lot.id} with ${lot.remaining} remaining`)
          if (lot.paymentRef === null || d.reverses !== lot.paymentRef)
            fail(
              'clawback',
              `clawback on lot ${lot.id} names payment ${d.reverses}, the lot came from ${lot.paymentRef}`,
            )
          lot.clawedBack += d.amount
          lot.remaining -= d.amount
        }
        break
      }
      default:
        break
    }
    for (const lot of this.#lots.values()) {
      if (lot.remaining < 0) fail('non-negative', `lot ${lot.id} went to ${lot.remaining}`)
    }
    this.#state = evolveAccount(this.#state, event)
  }

  /** The checks on the whole history: conservation per lot, and the balance against the domain's fold. */
  finish(now: number): void {
    const fail = (check: Parameters<Report>[0], message: string) =>
      this.#report(check, this.stream, null, message)
    for (const lot of this.#lots.values()) {
      const accounted = lot.remaining + lot.charged - lot.refunded + (lot.expired ?? 0) + lot.clawedBack
      if (accounted !== lot.credits)
        fail('lot-conservation', `lot ${lot.id}: granted ${lot.credits}, accounted ${accounted}`)
      const folded = this.#state.lots.get(lot.id)
      if (folded?.remaining !== lot.remaining)
        fail(
          'lot-conservation',
          `lot ${lot.id}: ${lot.remaining} remaining, the domain's fold says ${folded?.remaining}`,
        )
    }
    const live = [...this.#lots.values()].filter((lot) => lot.expired === null && lot.expiresAt > now)
    const sum = live.reduce((total, lot) => total + lot.remaining, 0)
    if (sum !== balanceAt(this.#state, now))
      fail('balance', `balance ${balanceAt(this.#state, now)} is not the sum of live lots ${sum}`)
    if (sum < 0) fail('non-negative', `balance ${sum}`)
  }

  #liveLots(at: number): AuditedLot[] {
    return [...this.#lots.values()]
      .filter((lot) => lot.expired === null && lot.expiresAt > at)
      .sort(bySpendingOrder)
  }

  #charge(
    d: Extract<AccountEvent, { type: 'JobCharged' }>['data'],
    fail: (check: Parameters<Report>[0], message: string) => void,
  ): void {
    const job = this.#jobs.get(d.jobId)
    if (!job) fail('charge-has-admission', `charge for job ${d.jobId}, which was not admitted before`)
    else if (job.charged !== null) fail('single-charge', `job ${d.jobId} charged a second time`)
    else if (job.released)
      fail('charge-has-admission', `job ${d.jobId} charged after its admission was released`)
    const total = d.allocations.reduce((sum, a) => sum + a.amount, 0)
    if (d.amount < 0 || total !== d.amount)
      fail('lot-conservation', `charge of ${d.amount} for job ${d.jobId} allocates ${total}`)
    const at = ms(d.at)
    // Spending order: the first live lots that still hold credits, each drained before the next.
    let left = d.amount
    const expected: Allocation[] = []
    for (const lot of this.#liveLots(at)) {
      if (left === 0) break
      const take = Math.min(lot.remaining, left)
      if (take > 0) expected.push({ lotId: lot.id, amount: take })
      left -= take
    }
    const same =
      expected.length === d.allocations.length &&
      expected.every((a, i) => a.lotId === d.allocations[i]?.lotId && a.amount === d.allocations[i]?.amount)
    if (!same)
      fail(
        'spending-order',
        `job ${d.jobId} was charged from ${JSON.stringify(d.allocations)}, expected ${JSON.stringify(expected)}`,
      )
    for (const allocation of d.allocations) {
      const lot = this.#lots.get(allocation.lotId)
      if (!lot) {
        fail('lot-validity', `charge from unknown lot ${allocation.lotId}`)
        continue
      }
      if (lot.expired !== null || lot.expiresAt <= at || lot.createdAt > at)
        fail('lot-validity', `job ${d.jobId} charged lot ${lot.id} outside its validity`)
      if (allocation.amount <= 0)
        fail('non-negative', `allocation of ${allocation.amount} from lot ${lot.id}`)
      lot.remaining -= allocation.amount
      lot.charged += allocation.amount
    }
    if (job && job.charged === null) {
      job.charged = d.amount
      job.allocations = d.allocations
    }
  }

  #refund(
    d: Extract<AccountEvent, { type: 'JobRefunded' }>['data'],
    fail: (check: Parameters<Report>[0], message: string) => void,
  ): void {
    const job = this.#jobs.get(d.jobId)
    if (!job || job.charged === null) {
      fail('refund-within-charge', `refund for job ${d.jobId}, which was not charged`)
      return
    }
    if (job.refunded + d.amount > job.charged)
      fail(
        'refund-within-charge',
        `job ${d.jobId} refunded ${job.refunded + d.amount} of a ${job.charged} charge`,
      )
    for (const allocation of d.allocations) {
      const charged = job.allocations.find((a) => a.lotId === allocation.lotId)?.amount ?? 0
      if (allocation.amount > charged)
        fail(
          'refund-within-charge',
          `job ${d.jobId} refunded ${allocation.amount} into lot ${allocation.lotId}, which gave ${charged}`,
        )
      const lot = this.#lots.get(allocation.lotId)
      if (lot) {
        lot.remaining += allocation.amount
        lot.refunded += allocation.amount
      }
    }
    job.refunded += d.amount
  }
}
