// Builders for account events and commands used across the domain tests.
import type { AccountCommand, ToolPolicy } from '../../domain/account/commands.ts'
import { decideAccount } from '../../domain/account/decide.ts'
import type { AccountEvent, LedgerEvent } from '../../domain/account/events.ts'
import { ledgerHash } from '../../domain/account/ledger-hash.ts'
import { evolveAccount, foldAccount, initialAccountState } from '../../domain/account/state.ts'

export const t0 = Date.parse('2026-01-01T00:00:00Z')
export const hour = 3_600_000
export const day = 24 * hour

export const accountId = 'acct_test'
export const iso = (ms: number) => new Date(ms).toISOString()

/** A ledger event as the decider seals it: chained to the last ledger hash of `past`. */
export function sealed(
  past: AccountEvent[],
  type: LedgerEvent['type'],
  data: Record<string, unknown>,
): AccountEvent {
  const prevHash = foldAccount(past).lastLedgerHash
  const full = { ...data, prevHash, hash: '' }
  full.hash = ledgerHash(type, { ...full, hash: undefined })
  return { type, data: full } as unknown as AccountEvent
}

/** Runs commands through decide/evolve, returning every event appended (like the store would). */
export function history(commands: AccountCommand[]): AccountEvent[] {
  let state = initialAccountState()
  const events: AccountEvent[] = []
  for (const command of commands) {
    for (const event of decideAccount(command, state)) {
      state = evolveAccount(state, event)
      events.push(event)
    }
  }
  return events
}

export const open = (credits = 100, now = t0): AccountCommand => ({
  type: 'OpenAccount',
  data: {
    accountId,
    login: 'ada',
    email: 'ada@example.com',
    signupLotId: 'lot_signup',
    signupCredits: credits,
    signupExpiresAt: now + 30 * day,
    now,
  },
})

export const grant = (
  lotId: string,
  credits: number,
  now: number,
  expiresAt: number,
  kind: 'pack' | 'subscription' | 'adjustment' = 'pack',
  paymentRef: string | null = `pay_${lotId}`,
): AccountCommand => ({
  type: 'GrantCredits',
  data: { lotId, kind, credits, expiresAt, reason: kind, paymentRef, now },
})

export const splitTool: ToolPolicy = {
  id: 'split_3d_model',
  minPrice: 2,
  jobsPerDay: 500,
  jobsPerDayBeforePurchase: 100,
}
export const imageTool: ToolPolicy = {
  id: 'create_image',
  minPrice: 8,
  jobsPerDay: 20,
  jobsPerDayBeforePurchase: 3,
}

export const admit = (
  jobId: string,
  now: number,
  { tool = splitTool, key = null as string | null, hash = null as string | null, maxActiveJobs = 1 } = {},
): AccountCommand => ({
  type: 'AdmitJob',
  data: {
    jobId,
    tool,
    idempotencyKey: key,
    requestHash: hash,
    policy: { maxActiveJobs, forgottenKeyMs: 30 * day },
    now,
  },
})

export const charge = (jobId: string, price: number, now: number, units = 1000): AccountCommand => ({
  type: 'ChargeJob',
  data: { jobId, units, price, now },
})

export const finish = (
  jobId: string,
  outcome: 'succeeded' | 'failed' | 'canceled',
  now: number,
  returned?: number,
): AccountCommand => ({
  type: 'FinishJob',
  data: { jobId, outcome, now, ...(returned === undefined ? {} : { returned }) },
})
