import { describe, expect, it } from 'vitest'
import { accountDecider } from '../../app/deciders.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import type { AccountEvent } from '../../domain/account/events.ts'
import { genesisHash } from '../../domain/account/ledger-hash.ts'
import { balanceAt, foldAccount } from '../../domain/account/state.ts'
import { specFor } from '../support/given-when-then.ts'
import {
  accountId,
  admit,
  charge,
  day,
  finish,
  grant,
  history,
  hour,
  imageTool,
  iso,
  open,
  sealed,
  t0,
} from './account-fixtures.ts'

const given = specFor(accountDecider)
/** The JobAdmitted a split_3d_model admission decides (hold: the tool's smallest price). */
const admitted = (
  jobId: string,
  now: number,
  { tool = 'split_3d_model', hold = 2, key = null as string | null, hash = null as string | null } = {},
): AccountEvent => ({
  type: 'JobAdmitted',
  data: { accountId, jobId, tool, idempotencyKey: key, requestHash: hash, hold, at: iso(now) },
})
const released = (
  jobId: string,
  outcome: 'succeeded' | 'failed' | 'canceled',
  now: number,
): AccountEvent => ({
  type: 'JobReleased',
  data: { accountId, jobId, outcome, at: iso(now) },
})

describe('account: opening and grants', () => {
  it('opens with a signup lot on the hash chain', () => {
    const [, granted] = given([])
      .when(open(100))
      .then([
        { type: 'AccountOpened', data: { accountId, login: 'ada', email: 'ada@example.com', at: iso(t0) } },
        sealed([], 'CreditsGranted', {
          accountId,
          lotId: 'lot_signup',
          lotKind: 'signup',
          credits: 100,
          expiresAt: iso(t0 + 30 * day),
          reason: 'signup',
          paymentRef: null,
          at: iso(t0),
        }),
      ])
    expect((granted!.data as { prevHash: string }).prevHash).toBe(genesisHash)
  })

  it('opening twice changes nothing', () => {
    given(history([open()]))
      .when(open())
      .thenNothing()
  })

  it('a pack lot lasts as long as its grant says and marks the first purchase', () => {
    const events = history([open(0), grant('lot_pack', 500, t0, t0 + 365 * day)])
    const state = foldAccount(events)
    expect(state.purchased).toBe(true)
    expect(balanceAt(state, t0 + 364 * day)).toBe(500)
    expect(balanceAt(state, t0 + 365 * day)).toBe(0)
  })

  it('a repeated grant of the same lot is a no-op; non-positive grants are refused', () => {
    const past = history([open(0), grant('lot_a', 10, t0, t0 + day)])
    given(past)
      .when(grant('lot_a', 10, t0, t0 + day))
      .thenNothing()
    given(past)
      .when(grant('lot_b', 0, t0, t0 + day))
      .thenError('invalid_request')
  })

  it('each ledger event chains to the previous one', () => {
    const events = history([open(10), grant('lot_a', 10, t0, t0 + day), admit('j1', t0), charge('j1', 5, t0)])
    const ledger = events.filter((e) => 'hash' in e.data) as Extract<
      AccountEvent,
      { data: { hash: string } }
    >[]
    expect(ledger).toHaveLength(3)
    for (let i = 1; i < ledger.length; i++) expect(ledger[i]!.data.prevHash).toBe(ledger[i - 1]!.data.hash)
  })
})

describe('account: admission is one decision', () => {
  const funded = history([open(10)])

  it('admits a job and holds its smallest price', () => {
    given(funded)
      .when(admit('j1', t0))
      .then([admitted('j1', t0)])
  })

  it('refuses with insufficient_credits when the balance is below the smallest price', () => {
    given(history([open(1)]))
      .when(admit('j1', t0))
      .thenError('insufficient_credits', /costs at least 2 credits; the available balance is 1/)
  })

  it('refuses a second active job with too_many_active_jobs', () => {
    given(history([open(10), admit('j1', t0)]))
      .when(admit('j2', t0))
      .thenError('too_many_active_jobs')
  })

  it('counts holds of active jobs against the balance', () => {
    given(history([open(3), admit('j1', t0, { maxActiveJobs: 5 })]))
      .when(admit('j2', t0, { maxActiveJobs: 5 }))
      .thenError('insufficient_credits')
  })

  it('caps a generation tool at 3 jobs per rolling 24 h before the first purchase, saying a purchase lifts it', () => {
    const jobs = [0, 1, 2].flatMap((i) => [
      admit(`j${i}`, t0 + i * hour, { tool: imageTool }),
      finish(`j${i}`, 'succeeded', t0 + i * hour),
    ])
    const past = history([open(100), ...jobs])
    const error = given(past)
      .when(admit('j3', t0 + 3 * hour, { tool: imageTool }))
      .thenError('quota_exceeded', /purchase/)
    expect(error.retryAfterSeconds).toBe(21 * 3600)
    // The window rolls: a day after the first job, one slot is free again.
    given(past)
      .when(admit('j3', t0 + day + 1, { tool: imageTool }))
      .then([admitted('j3', t0 + day + 1, { tool: 'create_image', hold: 8 })])
  })

  it('lifts the quota to 20 from the first purchase on', () => {
    const jobs = [0, 1, 2].flatMap((i) => [
      admit(`j${i}`, t0, { tool: imageTool }),
      finish(`j${i}`, 'succeeded', t0),
    ])
    given(history([open(100), ...jobs, grant('lot_pack', 100, t0, t0 + 365 * day)]))
      .when(admit('j3', t0 + hour, { tool: imageTool }))
      .then([admitted('j3', t0 + hour, { tool: 'create_image', hold: 8 })])
  })

  it('returns nothing for a repeated idempotency key of the same request (the first job stands)', () => {
    const past = history([open(10), admit('j1', t0, { key: 'k', hash: 'h1' })])
    given(past)
      .when(admit('j2', t0, { key: 'k', hash: 'h1' }))
      .thenNothing()
  })

  it('answers a replay before judging the account: frozen, or with its credits spent, the first job stands', () => {
    const past = history([
      open(2),
      admit('j1', t0, { key: 'k', hash: 'h1' }),
      charge('j1', 2, t0),
      { type: 'Freeze', data: { disputeId: 'dp_1', now: t0 } },
    ])
    given(past)
      .when(admit('j2', t0, { key: 'k', hash: 'h1' }))
      .thenNothing()
    given(past).when(admit('j2', t0)).thenError('account_frozen')
  })

  it('refuses the same key for another tool or a different request', () => {
    const past = history([
      open(100),
      admit('j1', t0, { key: 'k', hash: 'h1' }),
      finish('j1', 'succeeded', t0),
    ])
    given(past)
      .when(admit('j2', t0, { key: 'k', hash: 'h2' }))
      .thenError('idempotency_conflict', /different request/)
    given(past)
      .when(admit('j2', t0, { key: 'k', hash: 'h1', tool: imageTool }))
      .thenError('idempotency_conflict', /split_3d_model/)
  })

  it("answers job_deleted for a deleted job's key for a while, then lets the key go", () => {
    const past = history([
      open(100),
      admit('j1', t0, { key: 'k', hash: 'h1' }),
      finish('j1', 'succeeded', t0),
      { type: 'ForgetJob', data: { jobId: 'j1', now: t0 + hour } },
    ])
    given(past)
      .when(admit('j2', t0 + 2 * hour, { key: 'k', hash: 'h1' }))
      .thenError('job_deleted')
    const later = admit('j2', t0 + 29 * day, { key: 'k', hash: 'h1' })
    if (later.type === 'AdmitJob') later.data.policy.forgottenKeyMs = 7 * day
    given(past)
      .when(later)
      .then([admitted('j2', t0 + 29 * day, { key: 'k', hash: 'h1' })])
  })

  it('refuses a disabled or frozen account', () => {
    given(history([open(10), { type: 'Disable', data: { reason: 'abuse', now: t0 } }]))
      .when(admit('j1', t0))
      .thenError('account_disabled')
    given(history([open(10), { type: 'Freeze', data: { disputeId: 'dp_1', now: t0 } }]))
      .when(admit('j1', t0))
      .thenError('account_frozen')
  })
})

describe('account: charge, refund, release', () => {
  it('charges the exact price from the lot that expires first, then by grant time, then lot id', () => {
    const past = history([
      open(0),
      grant('lot_late', 10, t0, t0 + 10 * day),
      grant('lot_b', 3, t0, t0 + 5 * day),
      grant('lot_a', 3, t0, t0 + 5 * day),
      grant('lot_early', 2, t0 + hour, t0 + 5 * day),
      admit('j1', t0 + hour),
    ])
    given(past)
      .when(charge('j1', 9, t0 + hour))
      .then([
        sealed(past, 'JobCharged', {
          accountId,
          jobId: 'j1',
          tool: 'split_3d_model',
          at: iso(t0 + hour),
          units: 1000,
          amount: 9,
          allocations: [
            { lotId: 'lot_a', amount: 3 },
            { lotId: 'lot_b', amount: 3 },
            { lotId: 'lot_early', amount: 2 },
            { lotId: 'lot_late', amount: 1 },
          ],
        }),
      ])
  })

  it('charges a job once', () => {
    given(history([open(10), admit('j1', t0), charge('j1', 4, t0)]))
      .when(charge('j1', 4, t0))
      .thenNothing()
  })

  it('declines a charge above the available balance and releases the job, charging nothing', () => {
    given(history([open(5), admit('j1', t0)]))
      .when(charge('j1', 6, t0))
      .then([
        {
          type: 'JobChargeDeclined',
          data: {
            accountId,
            jobId: 'j1',
            tool: 'split_3d_model',
            at: iso(t0),
            price: 6,
            available: 5,
            reason: 'insufficient_credits',
          },
        },
        released('j1', 'failed', t0),
      ])
  })

  it('refunds a failed job into the lots it was charged from and releases it', () => {
    const past = history([open(10), admit('j1', t0), charge('j1', 4, t0)])
    const events = given(past)
      .when(finish('j1', 'failed', t0 + 1))
      .then([
        sealed(past, 'JobRefunded', {
          accountId,
          jobId: 'j1',
          tool: 'split_3d_model',
          amount: 4,
          allocations: [{ lotId: 'lot_signup', amount: 4 }],
          at: iso(t0 + 1),
        }),
        released('j1', 'failed', t0 + 1),
      ])
    expect(balanceAt(foldAccount([...past, ...events]), t0 + 2)).toBe(10)
  })

  it('does not refund a succeeded job, and refunds at most once', () => {
    const charged = history([open(10), admit('j1', t0), charge('j1', 4, t0)])
    given(charged)
      .when(finish('j1', 'succeeded', t0))
      .then([released('j1', 'succeeded', t0)])
    given(history([open(10), admit('j1', t0), charge('j1', 4, t0), finish('j1', 'failed', t0)]))
      .when(finish('j1', 'failed', t0))
      .thenNothing()
  })

  it('gives back what a succeeded job returns, from the lots spent from last, once and within its charge', () => {
    // The signup lot (3 left, expiring first) pays 3 of the 8, the pack the other 5.
    const past = history([
      open(3),
      grant('lot_pack', 20, t0, t0 + 90 * day),
      admit('j1', t0),
      charge('j1', 8, t0),
    ])
    const events = given(past)
      .when(finish('j1', 'succeeded', t0 + 1, 6))
      .then([
        sealed(past, 'JobRefunded', {
          accountId,
          jobId: 'j1',
          tool: 'split_3d_model',
          amount: 6,
          allocations: [
            { lotId: 'lot_signup', amount: 1 },
            { lotId: 'lot_pack', amount: 5 },
          ],
          at: iso(t0 + 1),
        }),
        released('j1', 'succeeded', t0 + 1),
      ])
    const after = foldAccount([...past, ...events])
    expect(balanceAt(after, t0 + 2)).toBe(23 - 8 + 6)
    expect(after.lots.get('lot_signup')?.remaining).toBe(1)
    // Settled again (the housekeeper after a worker), nothing more goes back.
    given([...past, ...events])
      .when(finish('j1', 'succeeded', t0 + 2, 6))
      .thenNothing()
    // More than the charge is never given back; a failed job gets its whole charge whatever it returns.
    for (const [outcome, returned] of [
      ['succeeded', 50],
      ['failed', 2],
    ] as const)
      given(past)
        .when(finish('j1', outcome, t0 + 1, returned))
        .thenMatching([{ type: 'JobRefunded', data: { amount: 8 } }, { type: 'JobReleased' }], outcome)
  })

  it('a canceled job that was never charged is only released', () => {
    given(history([open(10), admit('j1', t0)]))
      .when(finish('j1', 'canceled', t0))
      .then([released('j1', 'canceled', t0)])
  })

  it('charging or finishing an unknown job is refused', () => {
    given(history([open(10)]))
      .when(charge('nope', 1, t0))
      .thenError('not_found')
  })
})

describe('account: expiry, disputes, clawbacks', () => {
  it('expires what remains of lots past their expiry, once', () => {
    const past = history([open(10), admit('j1', t0), charge('j1', 4, t0), finish('j1', 'succeeded', t0)])
    const events = given(past)
      .when({ type: 'ExpireLots', data: { now: t0 + 30 * day } })
      .then([
        sealed(past, 'LotExpired', { accountId, lotId: 'lot_signup', amount: 6, at: iso(t0 + 30 * day) }),
      ])
    given([...past, ...events])
      .when({ type: 'ExpireLots', data: { now: t0 + 40 * day } })
      .thenNothing()
  })

  it('reads the balance right before the expiry is recorded', () => {
    const state = foldAccount(history([open(10)]))
    expect(balanceAt(state, t0 + 30 * day - 1)).toBe(10)
    expect(balanceAt(state, t0 + 30 * day)).toBe(0)
  })

  it('freezes while a dispute is open and unfreezes when it is won', () => {
    const frozen = history([open(10), { type: 'Freeze', data: { disputeId: 'dp_1', now: t0 } }])
    expect(foldAccount(frozen).openDisputes.size).toBe(1)
    given(frozen)
      .when({ type: 'Unfreeze', data: { disputeId: 'dp_1', now: t0 } })
      .then([{ type: 'AccountUnfrozen', data: { accountId, disputeId: 'dp_1', at: iso(t0) } }])
  })

  it('claws back at most what remains of the disputed payment, naming it', () => {
    const past = history([
      open(0),
      grant('lot_pack', 10, t0, t0 + 365 * day, 'pack', 'pi_1'),
      admit('j1', t0),
      charge('j1', 7, t0),
    ])
    given(past)
      .when({ type: 'ClawBack', data: { paymentRef: 'pi_1', amount: null, reason: 'dispute_lost', now: t0 } })
      .then([
        sealed(past, 'CreditsClawedBack', {
          accountId,
          lotId: 'lot_pack',
          amount: 3,
          reverses: 'pi_1',
          reason: 'dispute_lost',
          at: iso(t0),
        }),
      ])
  })

  it('claws back nothing twice', () => {
    const past = history([
      open(0),
      grant('lot_pack', 10, t0, t0 + 365 * day, 'pack', 'pi_1'),
      { type: 'ClawBack', data: { paymentRef: 'pi_1', amount: null, reason: 'refund', now: t0 } },
    ])
    given(past)
      .when({ type: 'ClawBack', data: { paymentRef: 'pi_1', amount: null, reason: 'dispute_lost', now: t0 } })
      .thenNothing()
  })
})

describe('account: API keys', () => {
  const createKey = (keyId: string, now: number) =>
    ({
      type: 'CreateApiKey',
      data: {
        keyId,
        name: 'default',
        prefix: 'kiln_sk_abcdef',
        secretHash: `h_${keyId}`,
        policy: { maxActiveKeys: 10, maxNewKeysPerDay: 20 },
        now,
      },
    }) as const

  it('creates keys up to 10 active', () => {
    const ten = history([open(), ...Array.from({ length: 10 }, (_, i) => createKey(`k${i}`, t0))])
    given(ten)
      .when(createKey('k10', t0))
      .thenError('key_limit', /10 active/)
  })

  it('allows 20 new keys per 24 h even with revocations', () => {
    const churn = Array.from({ length: 20 }, (_, i) => [
      createKey(`k${i}`, t0 + i),
      { type: 'RevokeApiKey', data: { keyId: `k${i}`, now: t0 + i } } as const,
    ]).flat()
    const past = history([open(), ...churn])
    given(past)
      .when(createKey('k20', t0 + hour))
      .thenError('key_limit', /20 new keys/)
    given(past)
      .when(createKey('k20', t0 + day + 1))
      .then([
        {
          type: 'ApiKeyCreated',
          data: {
            accountId,
            keyId: 'k20',
            name: 'default',
            prefix: 'kiln_sk_abcdef',
            secretHash: 'h_k20',
            at: iso(t0 + day + 1),
          },
        },
      ])
  })

  it('revokes once; an unknown key is not found', () => {
    const past = history([
      open(),
      createKey('k1', t0),
      { type: 'RevokeApiKey', data: { keyId: 'k1', now: t0 } },
    ])
    given(past)
      .when({ type: 'RevokeApiKey', data: { keyId: 'k1', now: t0 } })
      .thenNothing()
    given(past)
      .when({ type: 'RevokeApiKey', data: { keyId: 'k9', now: t0 } })
      .thenError('not_found')
  })

  it('refuses names longer than 60 characters', () => {
    given(history([open()]))
      .when({ ...createKey('k1', t0), data: { ...createKey('k1', t0).data, name: 'x'.repeat(61) } })
      .thenError('invalid_request')
  })
})

describe('account: checkouts', () => {
  const start = (requestId: string, item: string) => ({
    type: 'StartCheckout' as const,
    data: { requestId, item, sessionId: 'cs_1', url: 'https://pay/cs_1', now: t0 },
  })

  it('records a checkout once per request id; another item under the same id is a conflict', () => {
    const past = history([open(), start('r1', 'pack_500')])
    given(past).when(start('r1', 'pack_500')).thenNothing()
    given(past).when(start('r1', 'pack_2500')).thenError('conflict')
  })

  it('a frozen account cannot buy', () => {
    given(history([open(), { type: 'Freeze', data: { disputeId: 'dp', now: t0 } }]))
      .when(start('r1', 'pack_500'))
      .thenError('account_frozen')
  })
})

describe('account: OAuth apps', () => {
  const connect = (grantId = 'g1'): AccountCommand => ({
    type: 'ConnectOAuthApp',
    data: {
      grantId,
      clientId: 'https://agent.example/client.json',
      clientName: 'Agent',
      scopes: ['jobs:run', 'read'],
      resource: 'https://kiln.example/mcp',
      now: t0 + hour,
    },
  })
  const disconnect = (reason: 'revoked_by_owner' | 'token_reused' = 'revoked_by_owner'): AccountCommand => ({
    type: 'DisconnectOAuthApp',
    data: { grantId: 'g1', reason, now: t0 + 2 * hour },
  })

  it('records a consent once', () => {
    given(history([open()]))
      .when(connect())
      .then([
        {
          type: 'OAuthAppConnected',
          data: {
            accountId,
            grantId: 'g1',
            clientId: 'https://agent.example/client.json',
            clientName: 'Agent',
            scopes: ['jobs:run', 'read'],
            resource: 'https://kiln.example/mcp',
            at: iso(t0 + hour),
          },
        },
      ])
    given(history([open(), connect()]))
      .when(connect())
      .thenNothing()
  })

  it('records the end of a grant once, with its reason; an unknown grant is nothing to record', () => {
    given(history([open(), connect()]))
      .when(disconnect('token_reused'))
      .then([
        {
          type: 'OAuthAppDisconnected',
          data: { accountId, grantId: 'g1', reason: 'token_reused', at: iso(t0 + 2 * hour) },
        },
      ])
    given(history([open(), connect(), disconnect()]))
      .when(disconnect())
      .thenNothing()
    given(history([open()]))
      .when(disconnect())
      .thenNothing()
  })
})
