// The account's state, folded from its events. Times are epoch milliseconds.
import type { AccountEvent, Allocation, ChargeDeclineReason, LotKind } from './events.ts'
import { genesisHash } from './ledger-hash.ts'
import { bySpendingOrder } from './spending-order.ts'

export interface Lot {
  id: string
  kind: LotKind
  credits: number
  remaining: number
  expiresAt: number
  createdAt: number
  paymentRef: string | null
  /** Set once its expiry is recorded; what is refunded into it afterwards stays out of the balance. */
  expired: boolean
  clawedBack: number
}

export interface AdmittedJob {
  jobId: string
  tool: string
  idempotencyKey: string | null
  hold: number
  admittedAt: number
  charged: number | null
  allocations: Allocation[]
  refunded: boolean
  released: boolean
  forgotten: boolean
  /** Set when its charge was refused; such a job never runs. Absent in snapshots from before. */
  declined?: { reason: ChargeDeclineReason; available: number } | null
}

export interface IdempotencyRecord {
  jobId: string
  tool: string
  requestHash: string | null
  admittedAt: number
  forgottenAt: number | null
}

/**
 * How long a finished job and its idempotency key stay in the account's state: a retry with the key
 * inside this window gets the same job, a redelivered charge or settlement finds the job. Older ones
 * are pruned as new admissions arrive, so the state (and a snapshot of it) holds a window of jobs,
 * not the account's whole history. A deleted job's key is kept while it still answers job_deleted.
 */
export const retainedJobsMs = 30 * 24 * 60 * 60 * 1000

export interface KeyRecord {
  keyId: string
  createdAt: number
  revoked: boolean
}

export interface AccountState {
  exists: boolean
  accountId: string
  login: string
  email: string | null
  disabled: boolean
  openDisputes: Set<string>
  /** Disputes that ended: a late report of one as open (events cross) must not hold the account again. */
  closedDisputes: Set<string>
  lots: Map<string, Lot>
  lastLedgerHash: string
  /** Bought at least once: lifts the pre-purchase quotas and opens the customer portal. */
  purchased: boolean
  jobs: Map<string, AdmittedJob>
  activeJobIds: Set<string>
  /** Admission times per tool inside the rolling 24 h window (pruned as events arrive). */
  recentAdmissions: { tool: string; at: number }[]
  idempotency: Map<string, IdempotencyRecord>
  keys: Map<string, KeyRecord>
  /** Console tokens by id: whether each is revoked. */
  consoleTokens: Map<string, boolean>
  /** OAuth grants by id: true once disconnected. */
  oauthGrants: Map<string, boolean>
  subscription: { plan: string; status: string; renewsAt: string | null; endsAt: string | null } | null
  customerId: string | null
  /** Checkouts by the client's request id: the same id returns the same checkout. */
  checkouts: Map<string, { item: string; sessionId: string; url: string }>
  /** Linked sign-in identities, as `provider subject` (passkeys by credential id). */
  identities: Set<string>
  /** Passkeys by credential id: the last signature counter each reported. */
  passkeys: Map<string, { counter: number }>
}

/** One key per (provider, subject): how the account's state remembers a linked identity. */
export const identityKey = (provider: string, subject: string) => `${provider} ${subject}`

export const dayMs = 24 * 60 * 60 * 1000

export const initialAccountState = (): AccountState => ({
  exists: false,
  accountId: '',
  login: '',
  email: null,
  disabled: false,
  openDisputes: new Set(),
  closedDisputes: new Set(),
  lots: new Map(),
  lastLedgerHash: genesisHash,
  purchased: false,
  jobs: new Map(),
  activeJobIds: new Set(),
  recentAdmissions: [],
  idempotency: new Map(),
  keys: new Map(),
  consoleTokens: new Map(),
  oauthGrants: new Map(),
  subscription: null,
  customerId: null,
  checkouts: new Map(),
  identities: new Set(),
  passkeys: new Map(),
})

const ms = (iso: string) => Date.parse(iso)

function addToLots(state: AccountState, allocations: Allocation[], sign: 1 | -1): void {
  for (const { lotId, amount } of allocations) {
    const lot = state.lots.get(lotId)
    if (lot) lot.remaining += sign * amount
  }
}

/**
 * Drops released jobs admitted before `cutoff`, and the idempotency keys admitted before it (a
 * deleted job's key stays until it has answered job_deleted long enough). Maps keep admission order,
 * so the walk stops at the first entry inside the window.
 */
function pruneBefore(state: AccountState, cutoff: number): void {
  for (const [jobId, job] of state.jobs) {
    if (job.admittedAt >= cutoff) break
    if (job.released) state.jobs.delete(jobId)
  }
  for (const [key, record] of state.idempotency) {
    if (record.admittedAt >= cutoff) break
    if (record.forgottenAt === null || record.forgottenAt < cutoff) state.idempotency.delete(key)
  }
}

/** Folds one event into the state. Mutates and returns `state` (a fresh fold per command). */
export function evolveAccount(state: AccountState, event: AccountEvent): AccountState {
  const held = heldTotals.get(state)
  if (held === undefined) return applyEvent(state, event)
  // A held total already counted moves by what the event changed in its own job's hold; an event
  // of no job may change anything, so the total is counted again when next asked for.
  const jobId = 'jobId' in event.data ? event.data.jobId : null
  if (jobId === null) {
    heldTotals.delete(state)
    return applyEvent(state, event)
  }
  const before = heldBy(state, jobId)
  applyEvent(state, event)
  heldTotals.set(state, held - before + heldBy(state, jobId))
  return state
}

function applyEvent(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountOpened':
      state.exists = true
      state.accountId = event.data.accountId
      state.login = event.data.login
      state.email = event.data.email
      break
    case 'CreditsGranted': {
      const d = event.data
      state.lots.set(d.lotId, {
        id: d.lotId,
        kind: d.lotKind,
        credits: d.credits,
        remaining: d.credits,
        expiresAt: ms(d.expiresAt),
        createdAt: ms(d.at),
        paymentRef: d.paymentRef,
        expired: false,
        clawedBack: 0,
      })
      if (d.lotKind === 'pack' || d.lotKind === 'subscription') state.purchased = true
      state.lastLedgerHash = d.hash
      break
    }
    case 'JobAdmitted': {
      const d = event.data
      const at = ms(d.at)
      pruneBefore(state, at - retainedJobsMs)
      state.jobs.set(d.jobId, {
        jobId: d.jobId,
        tool: d.tool,
        idempotencyKey: d.idempotencyKey,
        hold: d.hold,
        admittedAt: at,
        charged: null,
        allocations: [],
        refunded: false,
        released: false,
        forgotten: false,
        declined: null,
      })
      state.activeJobIds.add(d.jobId)
      // Admissions come in time order: those outside the window are at the front (the quota's
      // count skips any that a clock step left further in).
      const recent = state.recentAdmissions
      let stale = 0
      while (stale < recent.length && recent[stale]!.at <= at - dayMs) stale++
      if (stale > 0) recent.splice(0, stale)
      recent.push({ tool: d.tool, at })
      if (d.idempotencyKey !== null) {
        // Re-inserted, not overwritten in place: the map stays in admission order for pruning.
        state.idempotency.delete(d.idempotencyKey)
        state.idempotency.set(d.idempotencyKey, {
          jobId: d.jobId,
          tool: d.tool,
          requestHash: d.requestHash,
          admittedAt: at,
          forgottenAt: null,
        })
      }
      break
    }
    case 'JobCharged': {
      const job = state.jobs.get(event.data.jobId)
      if (job) {
        job.charged = event.data.amount
        job.allocations = event.data.allocations
      }
      addToLots(state, event.data.allocations, -1)
      state.lastLedgerHash = event.data.hash
      break
    }
    case 'JobChargeDeclined': {
      const job = state.jobs.get(event.data.jobId)
      if (job)
        job.declined = {
          reason: event.data.reason ?? 'insufficient_credits',
          available: event.data.available,
        }
      break
    }
    case 'JobRefunded': {
      const job = state.jobs.get(event.data.jobId)
      if (job) job.refunded = true
      addToLots(state, event.data.allocations, 1)
      state.lastLedgerHash = event.data.hash
      break
    }
    case 'JobReleased': {
      const job = state.jobs.get(event.data.jobId)
      if (job) job.released = true
      state.activeJobIds.delete(event.data.jobId)
      break
    }
    case 'JobForgotten': {
      const job = state.jobs.get(event.data.jobId)
      if (job) job.forgotten = true
      const key = event.data.idempotencyKey
      const record = key === null ? undefined : state.idempotency.get(key)
      if (record && record.jobId === event.data.jobId) record.forgottenAt = ms(event.data.at)
      break
    }
    case 'LotExpired': {
      const lot = state.lots.get(event.data.lotId)
      if (lot) {
        lot.remaining -= event.data.amount
        lot.expired = true
      }
      state.lastLedgerHash = event.data.hash
      break
    }
    case 'CreditsClawedBack': {
      const lot = state.lots.get(event.data.lotId)
      if (lot) {
        lot.remaining -= event.data.amount
        lot.clawedBack += event.data.amount
      }
      state.lastLedgerHash = event.data.hash
      break
    }
    case 'AccountFrozen':
      state.openDisputes.add(event.data.disputeId)
      break
    case 'AccountUnfrozen':
      state.openDisputes.delete(event.data.disputeId)
      state.closedDisputes.add(event.data.disputeId)
      break
    case 'AccountDisabled':
      state.disabled = true
      break
    case 'AccountEnabled':
      state.disabled = false
      break
    case 'ApiKeyCreated':
      state.keys.set(event.data.keyId, {
        keyId: event.data.keyId,
        createdAt: ms(event.data.at),
        revoked: false,
      })
      break
    case 'ApiKeyRevoked': {
      const key = state.keys.get(event.data.keyId)
      if (key) key.revoked = true
      break
    }
    case 'ConsoleTokenIssued':
      state.consoleTokens.set(event.data.tokenId, false)
      break
    case 'ConsoleTokenRevoked':
      state.consoleTokens.set(event.data.tokenId, true)
      break
    case 'OAuthAppConnected':
      state.oauthGrants.set(event.data.grantId, false)
      break
    case 'OAuthAppDisconnected':
      state.oauthGrants.set(event.data.grantId, true)
      break
    case 'SubscriptionUpdated': {
      const { plan, status, renewsAt, endsAt } = event.data
      state.subscription = { plan, status, renewsAt, endsAt }
      break
    }
    case 'PaymentCustomerLinked':
      state.customerId = event.data.customerId
      break
    case 'CheckoutStarted': {
      const { requestId, item, sessionId, url } = event.data
      state.checkouts.set(requestId, { item, sessionId, url })
      break
    }
    case 'IdentityLinked':
      state.identities.add(identityKey(event.data.provider, event.data.subject))
      break
    case 'PasskeyRegistered':
      state.identities.add(identityKey('passkey', event.data.credentialId))
      state.passkeys.set(event.data.credentialId, { counter: event.data.counter })
      break
    case 'PasskeyUsed': {
      const passkey = state.passkeys.get(event.data.credentialId)
      if (passkey) passkey.counter = Math.max(passkey.counter, event.data.counter)
      break
    }
  }
  return state
}

export const foldAccount = (events: AccountEvent[]): AccountState =>
  events.reduce(evolveAccount, initialAccountState())

/** Lots that count at `now`, in spending order: expires first, then granted first, then lot id. */
export function liveLots(state: AccountState, now: number): Lot[] {
  return [...state.lots.values()].filter((lot) => !lot.expired && lot.expiresAt > now).sort(bySpendingOrder)
}

export const balanceAt = (state: AccountState, now: number): number =>
  liveLots(state, now).reduce((sum, lot) => sum + lot.remaining, 0)

/**
 * Each state's total of held credits, once it was asked for: evolveAccount keeps it current, so an
 * account with hundreds of queued jobs does not add them all up at every admission. Kept beside the
 * state rather than in it, so a snapshot stored before it existed (or a copy) counts afresh.
 */
const heldTotals = new WeakMap<AccountState, number>()

/** What one job holds: its hold while it is active and not yet charged. */
function heldBy(state: AccountState, jobId: string): number {
  const job = state.jobs.get(jobId)
  return job && job.charged === null && state.activeJobIds.has(jobId) ? job.hold : 0
}

/** Credits held for admitted jobs whose exact price is not known yet. */
export function heldCredits(state: AccountState, exceptJobId?: string): number {
  let held = heldTotals.get(state)
  if (held === undefined) {
    held = 0
    for (const jobId of state.activeJobIds) held += heldBy(state, jobId)
    heldTotals.set(state, held)
  }
  return exceptJobId === undefined ? held : held - heldBy(state, exceptJobId)
}

export const isFrozen = (state: AccountState) => state.openDisputes.size > 0
