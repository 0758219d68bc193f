// The accounts model (it serves Me and Billing): one document per account, one per ledger entry,
// one per charged job (30-day spend), one per admitted job (24 h usage). Times used in rolling
// windows are epoch milliseconds, so the window is cut at read time.
import type { LedgerKind, LotKind } from '../../domain/account/events.ts'
import type { Doc } from '../read-store.ts'

export const accountsModel = 'accounts'
export const collections = {
  accounts: 'accounts',
  ledger: 'ledger_entries',
  spend: 'job_spend',
  admissions: 'admissions',
} as const

export interface LotView {
  id: string
  kind: LotKind
  credits: number
  remaining: number
  expiresAt: number
  createdAt: number
  /** Its expiry was recorded; credits refunded into it afterwards stay out of the balance. */
  expired: boolean
}

export interface AccountDoc extends Doc {
  login: string
  email: string | null
  disabled: boolean
  openDisputes: string[]
  purchased: boolean
  lots: LotView[]
  /**
   * Admitted jobs not yet released. A count, not the ids: the document is rewritten at every
   * admission and release, and Me shows only the number. The account's decider releases each
   * admitted job once, so admissions minus releases is exact.
   */
  activeJobCount: number
  /** Written by earlier versions instead of activeJobCount; read through activeJobsOf. */
  activeJobs?: string[]
  subscription: { plan: string; status: string; renewsAt: string | null; endsAt: string | null } | null
}

export interface LedgerEntryDoc extends Doc {
  accountId: string
  kind: LedgerKind
  amount: number
  jobId: string | null
  tool: string | null
  createdAt: number
}

export interface JobSpendDoc extends Doc {
  accountId: string
  tool: string
  chargedAt: number
  charged: number
  refunded: number
}

export interface AdmissionDoc extends Doc {
  accountId: string
  tool: string
  at: number
}

/** The account's active job count, from either document shape (a stored model predating the count holds the ids). */
export const activeJobsOf = (doc: Pick<AccountDoc, 'activeJobCount' | 'activeJobs'>): number =>
  doc.activeJobCount ?? doc.activeJobs?.length ?? 0
