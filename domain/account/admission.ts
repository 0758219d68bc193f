// Admission of a job, in two halves that job creation can ask before it reads any input: is the
// idempotency key a replay of an earlier job, and would a new job be refused (account state, balance,
// active jobs, quota)? The AdmitJob decision asks both again on the state it appends against, so a
// race between two requests is still settled by the stream's expected revision.
import { DomainError } from '../errors.ts'
import type { AdmissionPolicy, ToolPolicy } from './commands.ts'
import { type AccountState, balanceAt, dayMs, heldCredits, isFrozen } from './state.ts'

export function requireOpen(state: AccountState): void {
  if (!state.exists) throw new DomainError('not_found', 'No such account.')
}

export function requireActive(state: AccountState): void {
  requireOpen(state)
  if (state.disabled) throw new DomainError('account_disabled')
  if (isFrozen(state)) throw new DomainError('account_frozen')
}

/**
 * The job an idempotency key already stands for, or null when the key is new. A key reused for
 * another tool or another request is a conflict; a deleted job's key answers job_deleted for a while.
 */
export function earlierJobFor(
  state: AccountState,
  d: {
    toolId: string
    idempotencyKey: string | null
    requestHash: string | null
    policy: AdmissionPolicy
    now: number
  },
): string | null {
  if (d.idempotencyKey === null) return null
  const seen = state.idempotency.get(d.idempotencyKey)
  if (!seen) return null
  if (seen.forgottenAt !== null) {
    if (d.now - seen.forgottenAt < d.policy.forgottenKeyMs) throw new DomainError('job_deleted')
    return null
  }
  if (seen.tool !== d.toolId || seen.requestHash !== d.requestHash) {
    throw new DomainError(
      'idempotency_conflict',
      `The idempotency key was used for a ${seen.tool === d.toolId ? 'different request' : `${seen.tool} job`}; use a new key for a new request.`,
    )
  }
  return seen.jobId
}

/** Refuses a new job the account cannot start now; returns when it may be admitted. */
export function requireAdmissible(
  state: AccountState,
  d: { tool: ToolPolicy; policy: AdmissionPolicy; now: number },
): void {
  requireActive(state)
  const available = balanceAt(state, d.now) - heldCredits(state)
  if (available < d.tool.minPrice) {
    throw new DomainError(
      'insufficient_credits',
      `A ${d.tool.id} job costs at least ${d.tool.minPrice} credits; the available balance is ${Math.max(0, available)}.`,
    )
  }
  if (state.activeJobIds.size >= d.policy.maxActiveJobs) {
    throw new DomainError(
      'too_many_active_jobs',
      `At most ${d.policy.maxActiveJobs} active job${d.policy.maxActiveJobs === 1 ? '' : 's'} at a time; wait for the running job to finish.`,
      { retryAfterSeconds: 5 },
    )
  }
  const windowStart = d.now - dayMs
  // Counted in place: an account may hold a day's worth of admissions.
  let count = 0
  let earliest = Number.POSITIVE_INFINITY
  for (const a of state.recentAdmissions) {
    if (a.tool !== d.tool.id || a.at <= windowStart) continue
    count++
    if (earliest === Number.POSITIVE_INFINITY) earliest = a.at
  }
  const cap = state.purchased ? d.tool.jobsPerDay : d.tool.jobsPerDayBeforePurchase
  if (count >= cap) {
    const retryAfterSeconds = Math.max(1, Math.ceil((earliest + dayMs - d.now) / 1000))
    const lift = state.purchased
      ? ''
      : ` A credit purchase (any pack or monthly bundle) lifts it to ${d.tool.jobsPerDay} per day from the next request.`
    throw new DomainError(
      'quota_exceeded',
      `The limit of ${cap} ${d.tool.id} jobs per rolling 24 hours is reached; retry in ${retryAfterSeconds} s.${lift}`,
      { retryAfterSeconds },
    )
  }
}
