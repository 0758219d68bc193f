// The account's rules. Each command is decided against the folded state and yields the events to
// append, or throws a DomainError. Time comes with the command (`data.now`).
import { DomainError } from '../errors.ts'
import { earlierJobFor, requireActive, requireAdmissible, requireOpen } from './admission.ts'
import type { AccountCommand, AdmissionPolicy, KeyPolicy, ToolPolicy } from './commands.ts'
import type { AccountEvent, Allocation, JobOutcome } from './events.ts'
import { chain, unsealed } from './ledger-chain.ts'
import { settlePayment } from './settle-payment.ts'
import {
  type AccountState,
  balanceAt,
  dayMs,
  evolveAccount,
  heldCredits,
  identityKey,
  initialAccountState,
  liveLots,
} from './state.ts'

const iso = (ms: number) => new Date(ms).toISOString()

function admitJob(
  state: AccountState,
  d: {
    jobId: string
    tool: ToolPolicy
    idempotencyKey: string | null
    requestHash: string | null
    policy: AdmissionPolicy
    now: number
  },
): AccountEvent[] {
  requireOpen(state)
  // A replay is answered before the account's state is judged: the job it names already exists.
  if (state.jobs.has(d.jobId) || earlierJobFor(state, { ...d, toolId: d.tool.id }) !== null) return []
  requireAdmissible(state, d)
  return [
    {
      type: 'JobAdmitted',
      data: {
        accountId: state.accountId,
        jobId: d.jobId,
        tool: d.tool.id,
        idempotencyKey: d.idempotencyKey,
        requestHash: d.requestHash,
        hold: d.tool.minPrice,
        at: iso(d.now),
      },
    },
  ]
}

/** Takes `amount` from the live lots in spending order. */
function allocate(state: AccountState, amount: number, now: number): Allocation[] {
  const allocations: Allocation[] = []
  let left = amount
  for (const lot of liveLots(state, now)) {
    if (left === 0) break
    const take = Math.min(lot.remaining, left)
    if (take > 0) {
      allocations.push({ lotId: lot.id, amount: take })
      left -= take
    }
  }
  return allocations
}

function chargeJob(
  state: AccountState,
  d: { jobId: string; units: number; price: number; now: number },
): AccountEvent[] {
  requireOpen(state)
  const job = state.jobs.get(d.jobId)
  if (!job) throw new DomainError('not_found', `Job ${d.jobId} was not admitted on this account.`)
  if (job.charged !== null || job.declined) return []
  if (!Number.isSafeInteger(d.price) || d.price < 0)
    throw new DomainError('invalid_request', 'A price is a whole number of credits.')
  const base = { accountId: state.accountId, jobId: d.jobId, tool: job.tool, at: iso(d.now) }
  // Released before it was charged: the housekeeper gave the admission up as orphaned (its job was
  // recorded too late), so its slot and hold are gone. Charging now would bypass the active-job limit
  // and the balance check it was admitted under; not charging would run it free. It never runs.
  if (job.released) {
    return [
      {
        type: 'JobChargeDeclined',
        data: { ...base, price: d.price, available: 0, reason: 'admission_released' },
      },
    ]
  }
  const available = balanceAt(state, d.now) - heldCredits(state, d.jobId)
  if (d.price > available) {
    return [
      {
        type: 'JobChargeDeclined',
        data: { ...base, price: d.price, available: Math.max(0, available), reason: 'insufficient_credits' },
      },
      {
        type: 'JobReleased',
        data: { accountId: state.accountId, jobId: d.jobId, outcome: 'failed', at: base.at },
      },
    ]
  }
  const allocations = allocate(state, d.price, d.now)
  return chain(state, [
    { type: 'JobCharged', data: { ...base, units: d.units, amount: d.price, allocations, ...unsealed } },
  ])
}

/**
 * `amount` of a charge spent as `allocations`, given back to the lots it came from: the whole
 * charge as it was taken, a part from the lots spent from last (those that expire last) first.
 */
function takenBack(allocations: Allocation[], amount: number): Allocation[] {
  const back: Allocation[] = []
  let left = amount
  for (const allocation of [...allocations].reverse()) {
    if (left === 0) break
    const part = Math.min(left, allocation.amount)
    back.unshift({ lotId: allocation.lotId, amount: part })
    left -= part
  }
  return back
}

function finishJob(
  state: AccountState,
  d: { jobId: string; outcome: JobOutcome; returned?: number; now: number },
): AccountEvent[] {
  requireOpen(state)
  const job = state.jobs.get(d.jobId)
  if (!job) throw new DomainError('not_found', `Job ${d.jobId} was not admitted on this account.`)
  const events: AccountEvent[] = []
  const at = iso(d.now)
  // A job that did not succeed costs nothing; one that succeeded costs what it did.
  const amount = d.outcome === 'succeeded' ? Math.min(d.returned ?? 0, job.charged ?? 0) : (job.charged ?? 0)
  if (amount > 0 && !job.refunded) {
    events.push({
      type: 'JobRefunded',
      data: {
        accountId: state.accountId,
        jobId: d.jobId,
        tool: job.tool,
        amount,
        allocations: takenBack(job.allocations, amount),
        at,
        ...unsealed,
      },
    })
  }
  if (!job.released) {
    events.push({
      type: 'JobReleased',
      data: { accountId: state.accountId, jobId: d.jobId, outcome: d.outcome, at },
    })
  }
  return chain(state, events)
}

/**
 * Frees the slot and hold of an admission whose job stream never appeared. Only an admission that was
 * never charged: a charge happens after the job is recorded, so a charged job is not an orphan, only
 * one the housekeeper has not seen yet, and releasing it would refund work that is running. A job
 * recorded after this release is declined at its charge and never runs.
 */
function releaseOrphanedAdmission(state: AccountState, d: { jobId: string; now: number }): AccountEvent[] {
  requireOpen(state)
  const job = state.jobs.get(d.jobId)
  if (!job || job.released || job.charged !== null) return []
  return [
    {
      type: 'JobReleased',
      data: { accountId: state.accountId, jobId: d.jobId, outcome: 'canceled', at: iso(d.now) },
    },
  ]
}

function forgetJob(state: AccountState, d: { jobId: string; now: number }): AccountEvent[] {
  requireOpen(state)
  const job = state.jobs.get(d.jobId)
  if (!job || job.forgotten) return []
  return [
    {
      type: 'JobForgotten',
      data: {
        accountId: state.accountId,
        jobId: d.jobId,
        idempotencyKey: job.idempotencyKey,
        at: iso(d.now),
      },
    },
  ]
}

function expireLots(state: AccountState, now: number): AccountEvent[] {
  requireOpen(state)
  const due = [...state.lots.values()]
    .filter((lot) => !lot.expired && lot.expiresAt <= now && lot.remaining > 0)
    .sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : 1))
  return chain(
    state,
    due.map((lot) => ({
      type: 'LotExpired' as const,
      data: { accountId: state.accountId, lotId: lot.id, amount: lot.remaining, at: iso(now), ...unsealed },
    })),
  )
}

function clawBack(
  state: AccountState,
  d: { paymentRef: string; amount: number | null; reason: string; now: number },
): AccountEvent[] {
  requireOpen(state)
  const events: AccountEvent[] = []
  let wanted = d.amount ?? Number.POSITIVE_INFINITY
  for (const lot of state.lots.values()) {
    if (lot.paymentRef !== d.paymentRef || wanted <= 0) continue
    const live = !lot.expired && lot.expiresAt > d.now
    const take = live ? Math.min(lot.remaining, lot.credits - lot.clawedBack, wanted) : 0
    if (take <= 0) continue
    wanted -= take
    events.push({
      type: 'CreditsClawedBack',
      data: {
        accountId: state.accountId,
        lotId: lot.id,
        amount: take,
        reverses: d.paymentRef,
        reason: d.reason,
        at: iso(d.now),
        ...unsealed,
      },
    })
  }
  return chain(state, events)
}

function createApiKey(
  state: AccountState,
  d: { keyId: string; name: string; prefix: string; secretHash: string; policy: KeyPolicy; now: number },
): AccountEvent[] {
  requireOpen(state)
  if (state.disabled) throw new DomainError('account_disabled')
  if (state.keys.has(d.keyId)) return []
  if (d.name.length === 0 || d.name.length > 60)
    throw new DomainError('invalid_request', 'A key name has 1 to 60 characters.')
  const keys = [...state.keys.values()]
  const active = keys.filter((k) => !k.revoked).length
  if (active >= d.policy.maxActiveKeys) {
    throw new DomainError('key_limit', `At most ${d.policy.maxActiveKeys} active keys; revoke one first.`)
  }
  const createdToday = keys.filter((k) => k.createdAt > d.now - dayMs).length
  if (createdToday >= d.policy.maxNewKeysPerDay) {
    throw new DomainError('key_limit', `At most ${d.policy.maxNewKeysPerDay} new keys per 24 hours.`)
  }
  const { keyId, name, prefix, secretHash } = d
  return [
    {
      type: 'ApiKeyCreated',
      data: { accountId: state.accountId, keyId, name, prefix, secretHash, at: iso(d.now) },
    },
  ]
}

export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  const { now } = command.data
  const at = iso(now)
  const accountId = state.accountId
  switch (command.type) {
    case 'OpenAccount': {
      if (state.exists) return []
      const d = command.data
      const opened: AccountEvent = {
        type: 'AccountOpened',
        data: { accountId: d.accountId, login: d.login, email: d.email, at },
      }
      if (d.signupCredits <= 0) return [opened]
      const openedState = evolveAccount(initialAccountState(), opened)
      const grant: AccountEvent = {
        type: 'CreditsGranted',
        data: {
          accountId: d.accountId,
          lotId: d.signupLotId,
          lotKind: 'signup',
          credits: d.signupCredits,
          expiresAt: iso(d.signupExpiresAt),
          reason: 'signup',
          paymentRef: null,
          at,
          ...unsealed,
        },
      }
      return [opened, ...chain(openedState, [grant])]
    }
    case 'GrantCredits': {
      requireOpen(state)
      const d = command.data
      if (state.lots.has(d.lotId)) return []
      if (!Number.isSafeInteger(d.credits) || d.credits <= 0) {
        throw new DomainError('invalid_request', 'A grant is a positive whole number of credits.')
      }
      if (d.expiresAt <= now) throw new DomainError('invalid_request', 'A lot must expire in the future.')
      return chain(state, [
        {
          type: 'CreditsGranted',
          data: {
            accountId,
            lotId: d.lotId,
            lotKind: d.kind,
            credits: d.credits,
            expiresAt: iso(d.expiresAt),
            reason: d.reason,
            paymentRef: d.paymentRef,
            at,
            ...unsealed,
          },
        },
      ])
    }
    case 'AdmitJob':
      return admitJob(state, command.data)
    case 'ChargeJob':
      return chargeJob(state, command.data)
    case 'FinishJob':
      return finishJob(state, command.data)
    case 'ReleaseOrphanedAdmission':
      return releaseOrphanedAdmission(state, command.data)
    case 'ForgetJob':
      return forgetJob(state, command.data)
    case 'ExpireLots':
      return expireLots(state, now)
    case 'ClawBack':
      return clawBack(state, command.data)
    case 'SettlePayment':
      return settlePayment(state, command.data)
    case 'Freeze':
      requireOpen(state)
      if (state.openDisputes.has(command.data.disputeId) || state.closedDisputes.has(command.data.disputeId))
        return []
      return [{ type: 'AccountFrozen', data: { accountId, disputeId: command.data.disputeId, at } }]
    case 'Unfreeze':
      requireOpen(state)
      if (!state.openDisputes.has(command.data.disputeId)) return []
      return [{ type: 'AccountUnfrozen', data: { accountId, disputeId: command.data.disputeId, at } }]
    case 'Disable':
      requireOpen(state)
      return state.disabled
        ? []
        : [{ type: 'AccountDisabled', data: { accountId, reason: command.data.reason, at } }]
    case 'Enable':
      requireOpen(state)
      return state.disabled ? [{ type: 'AccountEnabled', data: { accountId, at } }] : []
    case 'CreateApiKey':
      return createApiKey(state, command.data)
    case 'RevokeApiKey': {
      requireOpen(state)
      const key = state.keys.get(command.data.keyId)
      if (!key) throw new DomainError('not_found', 'No such key.')
      return key.revoked ? [] : [{ type: 'ApiKeyRevoked', data: { accountId, keyId: key.keyId, at } }]
    }
    case 'IssueConsoleToken': {
      requireOpen(state)
      const { tokenId, prefix, secretHash, expiresAt } = command.data
      if (state.consoleTokens.has(tokenId)) return []
      return [
        {
          type: 'ConsoleTokenIssued',
          data: { accountId, tokenId, prefix, secretHash, expiresAt: iso(expiresAt), at },
        },
      ]
    }
    case 'RevokeConsoleToken': {
      requireOpen(state)
      const revoked = state.consoleTokens.get(command.data.tokenId)
      if (revoked === undefined) throw new DomainError('not_found', 'No such console token.')
      return revoked
        ? []
        : [{ type: 'ConsoleTokenRevoked', data: { accountId, tokenId: command.data.tokenId, at } }]
    }
    case 'RecordSignIn': {
      requireActive(state)
      const { method, sessionRef } = command.data
      return [{ type: 'SignedIn', data: { accountId, method, sessionRef, at } }]
    }
    case 'ConnectOAuthApp': {
      requireActive(state)
      const { grantId, clientId, clientName, scopes, resource } = command.data
      if (state.oauthGrants.has(grantId)) return []
      return [
        {
          type: 'OAuthAppConnected',
          data: { accountId, grantId, clientId, clientName, scopes, resource, at },
        },
      ]
    }
    case 'DisconnectOAuthApp': {
      const { grantId, reason } = command.data
      // Unknown or already ended: nothing to record (revocation is idempotent, RFC 7009).
      if (state.oauthGrants.get(grantId) !== false) return []
      return [{ type: 'OAuthAppDisconnected', data: { accountId, grantId, reason, at } }]
    }
    case 'LinkIdentity': {
      requireActive(state)
      const { provider, subject } = command.data
      if (state.identities.has(identityKey(provider, subject))) return []
      return [{ type: 'IdentityLinked', data: { accountId, provider, subject, at } }]
    }
    case 'RegisterPasskey': {
      requireActive(state)
      const { credentialId, publicKey, counter, transports } = command.data
      if (state.passkeys.has(credentialId)) return []
      return [
        { type: 'PasskeyRegistered', data: { accountId, credentialId, publicKey, counter, transports, at } },
      ]
    }
    case 'UsePasskey': {
      requireActive(state)
      const { credentialId, counter } = command.data
      const passkey = state.passkeys.get(credentialId)
      if (!passkey) throw new DomainError('unauthorized', 'This passkey is not registered to the account.')
      // A counter that does not move forward (when the authenticator keeps one) means a cloned key.
      if ((counter !== 0 || passkey.counter !== 0) && counter <= passkey.counter)
        throw new DomainError('unauthorized', 'This passkey reported a signature counter that went back.')
      return [{ type: 'PasskeyUsed', data: { accountId, credentialId, counter, at } }]
    }
    case 'UpdateSubscription': {
      requireOpen(state)
      const { plan, status, renewsAt, endsAt } = command.data
      const s = state.subscription
      if (s && s.plan === plan && s.status === status && s.renewsAt === renewsAt && s.endsAt === endsAt)
        return []
      return [{ type: 'SubscriptionUpdated', data: { accountId, plan, status, renewsAt, endsAt, at } }]
    }
    case 'LinkPaymentCustomer':
      requireOpen(state)
      if (state.customerId === command.data.customerId) return []
      return [{ type: 'PaymentCustomerLinked', data: { accountId, customerId: command.data.customerId, at } }]
    case 'StartCheckout': {
      requireActive(state)
      const { requestId, item, sessionId, url } = command.data
      const earlier = state.checkouts.get(requestId)
      if (earlier) {
        if (earlier.item !== item)
          throw new DomainError(
            'conflict',
            'This request_id started a checkout for another item; use a new request_id.',
          )
        return []
      }
      return [{ type: 'CheckoutStarted', data: { accountId, requestId, item, sessionId, url, at } }]
    }
  }
}
