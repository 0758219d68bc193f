// Realistic histories made by the domain itself: commands decided against folded state in memory,
// each decision yielded as one append. Deterministic for a seed. Tests append a few hundred events;
// the benchmark appends over a million.

import { createHash } from 'node:crypto'
import { deterministicEventId } from '../../../app/event-ids.ts'
import type { AccountCommand, ToolPolicy } from '../../../domain/account/commands.ts'
import { decideAccount } from '../../../domain/account/decide.ts'
import { accountStream } from '../../../domain/account/events.ts'
import { type AccountState, evolveAccount, initialAccountState } from '../../../domain/account/state.ts'
import { isDomainError } from '../../../domain/errors.ts'
import type { JobCommand } from '../../../domain/job/commands.ts'
import { decideJob } from '../../../domain/job/decide.ts'
import { type JobEvent, jobStream } from '../../../domain/job/events.ts'
import { evolveJob, initialJobState, type JobState } from '../../../domain/job/state.ts'
import type { EventStore } from '../../../domain/ports/event-store.ts'

export interface Append {
  streamId: string
  events: { type: string; data: unknown }[]
}

export interface HistoryOptions {
  accounts: number
  jobsPerAccount: number
  seed?: number
  start?: number
}

export const historyStart = Date.parse('2026-01-01T00:00:00Z')
const minute = 60_000
const day = 24 * 60 * minute

const tools: ToolPolicy[] = [
  { id: 'split_3d_model', minPrice: 2, jobsPerDay: 500, jobsPerDayBeforePurchase: 100 },
  { id: 'extract_pdf', minPrice: 1, jobsPerDay: 500, jobsPerDayBeforePurchase: 100 },
  { id: 'get_random_numbers', minPrice: 1, jobsPerDay: 500, jobsPerDayBeforePurchase: 100 },
  { id: 'create_image', minPrice: 8, jobsPerDay: 20, jobsPerDayBeforePurchase: 3 },
]
const admission = { maxActiveJobs: 1, forgottenKeyMs: 30 * day }

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pad = (n: number, width: number) => n.toString(36).padStart(width, '0')

class AccountSim {
  state: AccountState = initialAccountState()
  readonly id: string
  constructor(index: number) {
    this.id = `acct_${pad(index, 20)}`
  }

  decide(command: AccountCommand): Append | null {
    const events = decideAccount(command, this.state)
    if (events.length === 0) return null
    for (const event of events) this.state = evolveAccount(this.state, event)
    return { streamId: accountStream(this.id), events }
  }

  /** Like decide, but a refused command (quota, balance) yields nothing. */
  attempt(command: AccountCommand): Append | null {
    try {
      return this.decide(command)
    } catch (error) {
      if (isDomainError(error)) return null
      throw error
    }
  }
}

/** Deterministic bytes standing in for an authenticator's randomness. */
const bytesOf = (label: string, length: number): Buffer => {
  const out: Buffer[] = []
  for (let i = 0; out.length * 32 < length; i++)
    out.push(createHash('sha256').update(`${label}#${i}`).digest())
  return Buffer.concat(out).subarray(0, length)
}

/** An ES256 public key as WebAuthn stores it: a COSE_Key map (kty EC2, alg -7, crv P-256, x, y), base64url. */
const cosePublicKey = (label: string): string =>
  Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    bytesOf(`${label}/x`, 32),
    Buffer.from([0x22, 0x58, 0x20]),
    bytesOf(`${label}/y`, 32),
  ]).toString('base64url')

/**
 * Signing up with a passkey: a platform passkey (synced, its counter always 0) for one account in
 * three, a security key (a counter that moves forward on every use) for the next, none for the third.
 */
function* registerPasskey(account: AccountSim, index: number, now: number): Generator<Append> {
  const kind = index % 3
  if (kind === 2) return
  const platform = kind === 0
  const credentialId = bytesOf(`passkey/${account.id}`, platform ? 16 : 64).toString('base64url')
  const registered = account.decide({
    type: 'RegisterPasskey',
    data: {
      credentialId,
      publicKey: cosePublicKey(credentialId),
      counter: platform ? 0 : 1,
      transports: platform ? ['hybrid', 'internal'] : ['nfc', 'usb'],
      now,
    },
  })
  if (registered) yield registered
}

/** Signing in with each of the account's passkeys; the authenticator reports its next counter. */
function* usePasskeys(account: AccountSim, round: number, now: number): Generator<Append> {
  for (const [credentialId, { counter }] of account.state.passkeys) {
    // A sign-in the account refuses (frozen) records nothing.
    const used = account.attempt({
      type: 'UsePasskey',
      data: { credentialId, counter: counter === 0 ? 0 : counter + 1 + (round % 3), now },
    })
    if (used) yield used
  }
}

function jobStep(state: JobState, command: JobCommand): { state: JobState; append: Append } {
  const events: JobEvent[] = decideJob(command, state)
  for (const event of events) state = evolveJob(state, event)
  return {
    state,
    append: { streamId: jobStream(command.type === 'CreateJob' ? command.data.jobId : state.jobId), events },
  }
}

/** One job's life from admission to its end, as appends in order. */
function* runJob(account: AccountSim, jobIndex: number, now: number, next: () => number): Generator<Append> {
  const tool = tools[Math.floor(next() * tools.length)]!
  const jobId = `j_${pad(jobIndex, 26)}`
  const admitted = account.attempt({
    type: 'AdmitJob',
    data: { jobId, tool, idempotencyKey: `k${jobIndex}`, requestHash: null, policy: admission, now },
  })
  if (!admitted) return
  yield admitted
  const input = {
    name: 'model.glb',
    bytes: 1000,
    source: 'upload' as const,
    blobKey: `blobs/${jobId}`,
    sha256: null,
  }
  let job = jobStep(initialJobState(), {
    type: 'CreateJob',
    data: {
      jobId,
      accountId: account.id,
      tool: tool.id,
      input,
      options: {},
      idempotencyKey: `k${jobIndex}`,
      now,
    },
  })
  yield job.append
  job = jobStep(job.state, { type: 'StartJob', data: { attempt: 1, worker: 'w1', now: now + 1000 } })
  yield job.append
  const price = tool.minPrice * (1 + Math.floor(next() * 3))
  job = jobStep(job.state, {
    type: 'RecordMeasurement',
    data: { units: 10, credits: price, now: now + 2000 },
  })
  yield job.append
  const charged = account.decide({ type: 'ChargeJob', data: { jobId, units: 10, price, now: now + 2000 } })
  if (charged) yield charged
  const declined = charged?.events.some((e) => e.type === 'JobChargeDeclined') ?? true
  job = jobStep(job.state, {
    type: 'ReportProgress',
    data: { fraction: 0.5, message: 'halfway', now: now + 3000 },
  })
  yield job.append
  const fails = declined || next() < 0.15
  const end = now + 4000
  if (fails) {
    const error = { code: declined ? 'insufficient_credits' : 'invalid_mesh', message: 'failed', hint: null }
    job = jobStep(job.state, { type: 'FailJob', data: { error, computeMs: 900, retentionMs: day, now: end } })
  } else {
    const result = { files: [{ name: 'out.glb', bytes: 500, sha256: 'ab'.repeat(32) }] }
    job = jobStep(job.state, {
      type: 'CompleteJob',
      data: { result, computeMs: 900, retentionMs: day, now: end },
    })
  }
  yield job.append
  const finished = account.decide({
    type: 'FinishJob',
    data: { jobId, outcome: fails ? 'failed' : 'succeeded', now: end },
  })
  if (finished) yield finished
}

/** Occasional account life besides jobs: purchases, expiry sweeps, keys, disputes, clawbacks, passkey sign-ins. */
function* accountLife(
  account: AccountSim,
  round: number,
  now: number,
  next: () => number,
): Generator<Append> {
  const roll = next()
  const lotId = `lot_${account.id.slice(5)}_${round}`
  if (roll < 0.08) {
    const bought = account.decide({
      type: 'GrantCredits',
      data: {
        lotId,
        kind: 'pack',
        credits: 500,
        expiresAt: now + 365 * day,
        reason: 'pack',
        paymentRef: `pay_${lotId}`,
        now,
      },
    })
    if (bought) yield bought
  } else if (roll < 0.12) {
    const expired = account.decide({ type: 'ExpireLots', data: { now } } as AccountCommand)
    if (expired) yield expired
  } else if (roll < 0.14) {
    const key = account.attempt({
      type: 'CreateApiKey',
      data: {
        keyId: `key_${account.id.slice(5)}_${round}`,
        name: `key ${round}`,
        prefix: 'kiln_sk_abcdef',
        secretHash: `hash_${account.id}_${round}`,
        policy: { maxActiveKeys: 10, maxNewKeysPerDay: 20 },
        now,
      },
    })
    if (key) yield key
  } else if (roll < 0.15) {
    const pack = [...account.state.lots.values()].find((lot) => lot.paymentRef !== null)
    if (pack) {
      const clawed = account.decide({
        type: 'ClawBack',
        data: { paymentRef: pack.paymentRef!, amount: 5, reason: 'dispute lost', now },
      })
      if (clawed) yield clawed
    }
  } else if (roll < 0.16) {
    const frozen = account.decide({ type: 'Freeze', data: { disputeId: `dp_${round}`, now } })
    if (frozen) yield frozen
    const unfrozen = account.decide({
      type: 'Unfreeze',
      data: { disputeId: `dp_${round}`, now: now + minute },
    })
    if (unfrozen) yield unfrozen
  } else if (roll < 0.5) {
    yield* usePasskeys(account, round, now)
  }
}

export function* generateHistory({
  accounts,
  jobsPerAccount,
  seed = 1,
  start = historyStart,
}: HistoryOptions): Generator<Append> {
  const next = random(seed)
  const sims = Array.from({ length: accounts }, (_, i) => new AccountSim(i))
  let now = start
  for (const [index, sim] of sims.entries()) {
    const opened = sim.decide({
      type: 'OpenAccount',
      data: {
        accountId: sim.id,
        login: `user${sim.id.slice(-4)}`,
        email: `${sim.id}@example.com`,
        signupLotId: `lot_${sim.id.slice(5)}_signup`,
        signupCredits: 100,
        signupExpiresAt: now + day,
        now,
      },
    })
    if (opened) yield opened
    yield* registerPasskey(sim, index, now)
  }
  let jobIndex = 0
  for (let round = 0; round < jobsPerAccount; round++) {
    for (const sim of sims) {
      now += minute
      yield* accountLife(sim, round, now, next)
      yield* runJob(sim, jobIndex++, now + 2 * minute, next)
    }
    // Rounds an hour apart on average: histories span days, so windows and expiries matter.
    now += 60 * minute
  }
}

/**
 * Appends a history through the port, one append per decision, each with its expected revision
 * (`revisions` carries the streams' revisions from one call to the next). Returns the last position.
 */
export async function appendHistory(
  store: EventStore,
  appends: Iterable<Append>,
  revisions = new Map<string, number>(),
): Promise<number> {
  let position = 0
  for (const { streamId, events } of appends) {
    const revision = revisions.get(streamId)
    const result = await store.append(
      streamId,
      events.map((event) => ({
        id: deterministicEventId(streamId, event.type, event.data),
        type: event.type,
        data: event.data,
      })),
      revision ?? 'no_stream',
    )
    revisions.set(streamId, result.nextRevision)
    position = result.position
  }
  return position
}
