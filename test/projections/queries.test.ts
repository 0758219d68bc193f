// The read models as the REST layer calls them, over a history made by the real deciders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountDecider, jobDecider, uploadDecider } from '../../app/deciders.ts'
import { handleCommand } from '../../app/handle-command.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { accountStream } from '../../domain/account/events.ts'
import type { JobCommand } from '../../domain/job/commands.ts'
import { jobStream } from '../../domain/job/events.ts'
import { uploadStream } from '../../domain/upload/events.ts'
import type { AccountDoc } from '../../projections/accounts/account-docs.ts'
import { getBilling } from '../../projections/accounts/billing.ts'
import { getMe } from '../../projections/accounts/me.ts'
import { isDeeplyFrozen } from '../../projections/frozen.ts'
import { getJob, getJobRecord, listJobs } from '../../projections/jobs/queries.ts'
import { findCredentialBySecretHash, listKeys, recordKeyUse } from '../../projections/keys/queries.ts'
import { type RunningProjections, startProjections } from '../../projections/projections.ts'
import { ReadModels } from '../../projections/read-models.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'

const t0 = Date.parse('2026-03-01T00:00:00Z')
const hour = 3_600_000
const day = 24 * hour
const at = (ms: number) => new Date(ms)
const iso = (ms: number) => new Date(ms).toISOString()
const acct = 'acct_queries0000000000'
const policy = { maxActiveJobs: 1, forgottenKeyMs: day }
const split = { id: 'split_3d_model', minPrice: 2, jobsPerDay: 500, jobsPerDayBeforePurchase: 100 }
const pdf = { id: 'extract_pdf', minPrice: 1, jobsPerDay: 500, jobsPerDayBeforePurchase: 100 }
const jobA = `j_${'a'.repeat(26)}`
const jobB = `j_${'b'.repeat(26)}`
const jobC = `j_${'c'.repeat(26)}`
const signFileUrl = (jobId: string, name: string, expiresAt: Date) =>
  `https://files.test/${jobId}/${name}?exp=${expiresAt.toISOString()}`

let store: SqliteEventStore
let reads: SqliteReadStore
let models: ReadModels
let projections: RunningProjections
let head = 0

const account = async (command: AccountCommand) => {
  head = (await handleCommand(store, accountStream(acct), accountDecider, command)).position
}
const job = async (jobId: string, command: JobCommand) => {
  head = (await handleCommand(store, jobStream(jobId), jobDecider, command)).position
}

async function runJob(jobId: string, tool: typeof split, start: number, price: number, succeeds: boolean) {
  await account({
    type: 'AdmitJob',
    data: { jobId, tool, idempotencyKey: `idem-${jobId}`, requestHash: null, policy, now: start },
  })
  const input = {
    name: 'in.glb',
    bytes: 10,
    source: 'upload' as const,
    blobKey: `blobs/${jobId}`,
    sha256: null,
  }
  await job(jobId, {
    type: 'CreateJob',
    data: {
      jobId,
      accountId: acct,
      tool: tool.id,
      input,
      options: { detail: 'low' },
      idempotencyKey: `idem-${jobId}`,
      now: start,
    },
  })
  await job(jobId, { type: 'StartJob', data: { attempt: 1, worker: 'w', now: start + 1000 } })
  await job(jobId, { type: 'RecordMeasurement', data: { units: 10, credits: price, now: start + 2000 } })
  await account({ type: 'ChargeJob', data: { jobId, units: 10, price, now: start + 2000 } })
  await job(jobId, { type: 'ReportProgress', data: { fraction: 0.4, message: 'cutting', now: start + 3000 } })
  if (succeeds) {
    const result = { part_count: 2, files: [{ name: 'parts/a.glb', bytes: 5, sha256: 'f'.repeat(64) }] }
    await job(jobId, {
      type: 'CompleteJob',
      data: { result, computeMs: 1500, retentionMs: day, now: start + 4000 },
    })
  } else {
    const error = { code: 'invalid_mesh', message: 'The model could not be read.', hint: null }
    await job(jobId, {
      type: 'FailJob',
      data: { error, computeMs: 100, retentionMs: day, now: start + 4000 },
    })
  }
  await account({
    type: 'FinishJob',
    data: { jobId, outcome: succeeds ? 'succeeded' : 'failed', now: start + 4000 },
  })
}

beforeAll(async () => {
  store = new SqliteEventStore(':memory:')
  reads = new SqliteReadStore(':memory:')
  models = new ReadModels(reads)
  projections = await startProjections(store, reads)
  await account({
    type: 'OpenAccount',
    data: {
      accountId: acct,
      login: 'ada',
      email: 'ada@example.com',
      signupLotId: 'lot_signup',
      signupCredits: 100,
      signupExpiresAt: t0 + 30 * day,
      now: t0,
    },
  })
  await account({
    type: 'GrantCredits',
    data: {
      lotId: 'lot_pack',
      kind: 'pack',
      credits: 500,
      expiresAt: t0 + 365 * day,
      reason: 'pack',
      paymentRef: 'pay_1',
      now: t0 + hour,
    },
  })
  await runJob(jobA, split, t0 + 2 * hour, 5, true)
  await runJob(jobB, pdf, t0 + 3 * hour, 3, false)
  await runJob(jobC, split, t0 + 4 * hour, 2, true)
  const keyPolicy = { maxActiveKeys: 10, maxNewKeysPerDay: 20 }
  for (const keyId of ['key_1', 'key_2']) {
    await account({
      type: 'CreateApiKey',
      data: {
        keyId,
        name: `name ${keyId}`,
        prefix: 'kiln_sk_abcdef',
        secretHash: `hash_${keyId}`,
        policy: keyPolicy,
        now: t0 + 5 * hour,
      },
    })
  }
  await account({ type: 'RevokeApiKey', data: { keyId: 'key_1', now: t0 + 6 * hour } })
  await account({
    type: 'IssueConsoleToken',
    data: {
      tokenId: 'tok_1',
      prefix: 'kiln_cs_abcdef',
      secretHash: 'hash_tok',
      expiresAt: t0 + 90 * 24 * hour,
      now: t0 + 6 * hour,
    },
  })
  expect(await projections.waitForPosition(head, 5000)).toBe(true)
})

afterAll(async () => {
  await projections.stop()
  await store.close()
  await reads.close()
})

describe('jobs', () => {
  const render = { now: at(t0 + 5 * hour), signFileUrl }

  it('renders exactly the Job resource, with URLs signed at read time', async () => {
    const resource = await getJob(models, acct, jobA, render)
    expect(Object.keys(resource!).sort()).toEqual(
      [
        'compute_ms',
        'created_at',
        'credits_charged',
        'error',
        'finished_at',
        'id',
        'input',
        'options',
        'outputs_expire_at',
        'result',
        'started_at',
        'status',
        'tool',
      ].sort(),
    )
    const expires = t0 + 2 * hour + 4000 + day
    expect(resource).toMatchObject({
      id: jobA,
      status: 'succeeded',
      input: { name: 'in.glb', bytes: 10, source: 'upload' },
      credits_charged: 5,
      compute_ms: 1500,
      created_at: iso(t0 + 2 * hour),
      started_at: iso(t0 + 2 * hour + 1000),
      finished_at: iso(t0 + 2 * hour + 4000),
      outputs_expire_at: iso(expires),
      result: {
        part_count: 2,
        files: [
          {
            name: 'parts/a.glb',
            bytes: 5,
            url: `https://files.test/${jobA}/parts/a.glb?exp=${iso(expires)}`,
          },
        ],
      },
    })
    // Later reads sign again, never past the outputs' expiry; after it, no file is offered.
    const later = await getJob(models, acct, jobA, { now: at(expires - hour), signFileUrl })
    expect(later!.result!.files[0]!.url).toContain(iso(expires))
    expect((await getJob(models, acct, jobA, { now: at(expires + 1), signFileUrl }))!.result!.files).toEqual(
      [],
    )
  })

  it('shares one frozen resource for a job with no files to sign, and signs afresh for one with files', async () => {
    const failed = await getJob(models, acct, jobB, render)
    expect(isDeeplyFrozen(failed)).toBe(true)
    expect(await getJob(models, acct, jobB, { now: at(t0 + 9 * hour), signFileUrl })).toBe(failed)
    const withFiles = await getJob(models, acct, jobA, render)
    expect(isDeeplyFrozen(withFiles)).toBe(false)
    expect(await getJob(models, acct, jobA, render)).not.toBe(withFiles)
  })

  it('a failed job shows its error and charges 0; another account sees nothing', async () => {
    expect(await getJob(models, acct, jobB, render)).toMatchObject({
      status: 'failed',
      credits_charged: 0,
      error: { code: 'invalid_mesh' },
    })
    expect(await getJob(models, 'acct_other', jobA, render)).toBeNull()
    expect(await getJobRecord(models, jobA)).toMatchObject({
      accountId: acct,
      idempotencyKey: `idem-${jobA}`,
      input: { blobKey: `blobs/${jobA}` },
      progress: { fraction: 0.4, message: 'cutting' },
    })
  })

  it('lists newest first with the before cursor and the tool and status filters', async () => {
    const first = await listJobs(models, acct, { limit: 2 }, render)
    expect(first.jobs.map((j) => j.id)).toEqual([jobC, jobB])
    expect(first.next_before).toEqual(expect.any(Number))
    const second = await listJobs(models, acct, { limit: 2, before: first.next_before }, render)
    expect(second).toMatchObject({ jobs: [{ id: jobA }], next_before: null })
    expect(
      (await listJobs(models, acct, { limit: 100, tool: 'split_3d_model' }, render)).jobs.map((j) => j.id),
    ).toEqual([jobC, jobA])
    expect(
      (await listJobs(models, acct, { limit: 100, status: 'failed' }, render)).jobs.map((j) => j.id),
    ).toEqual([jobB])
    await expect(listJobs(models, acct, { limit: 0 }, render)).rejects.toThrow(RangeError)
    await expect(listJobs(models, acct, { limit: 101 }, render)).rejects.toThrow(RangeError)
  })
})

describe('me and billing', () => {
  it('counts usage and credits in windows cut at read time', async () => {
    const me = await getMe(models, acct, { now: at(t0 + 5 * hour), auth: 'key' })
    expect(me).toMatchObject({
      id: acct,
      login: 'ada',
      email: 'ada@example.com',
      plan: 'prepaid',
      auth: 'key',
      usage: {
        jobs_last_24h: 3,
        active_jobs: 0,
        jobs_last_24h_by_tool: { split_3d_model: 2, extract_pdf: 1 },
      },
      // The signup lot expires first, so it paid for both split jobs (the pdf charge went back).
      credits: { balance: 593, next_expiry: { credits: 93, at: iso(t0 + 30 * day) } },
    })
    expect(me!.limits.tools.create_image).toMatchObject({ jobs_per_day: 20, jobs_per_day_before_purchase: 3 })
    const nextDay = await getMe(models, acct, { now: at(t0 + 2 * hour + day + 1), auth: 'oauth' })
    expect(nextDay!.usage).toEqual({
      jobs_last_24h: 2,
      active_jobs: 0,
      jobs_last_24h_by_tool: { split_3d_model: 1, extract_pdf: 1 },
    })
    const afterSignupExpiry = await getMe(models, acct, { now: at(t0 + 31 * day), auth: 'key' })
    expect(afterSignupExpiry!.credits).toEqual({
      balance: 500,
      next_expiry: { credits: 500, at: iso(t0 + 365 * day) },
    })
  })

  it('shows lots, 30-day spend net of refunds, and the newest entries first', async () => {
    const billing = await getBilling(models, acct, { now: at(t0 + 5 * hour) })
    expect(billing).toEqual({
      balance: 593,
      lots: [
        { kind: 'signup', credits: 100, remaining: 93, expires_at: iso(t0 + 30 * day), created_at: iso(t0) },
        {
          kind: 'pack',
          credits: 500,
          remaining: 500,
          expires_at: iso(t0 + 365 * day),
          created_at: iso(t0 + hour),
        },
      ],
      spent_last_30_days_by_tool: { split_3d_model: 7, extract_pdf: 0 },
      entries: [
        {
          kind: 'charge',
          amount: 2,
          job_id: jobC,
          tool: 'split_3d_model',
          created_at: iso(t0 + 4 * hour + 2000),
        },
        {
          kind: 'refund',
          amount: 3,
          job_id: jobB,
          tool: 'extract_pdf',
          created_at: iso(t0 + 3 * hour + 4000),
        },
        {
          kind: 'charge',
          amount: 3,
          job_id: jobB,
          tool: 'extract_pdf',
          created_at: iso(t0 + 3 * hour + 2000),
        },
        {
          kind: 'charge',
          amount: 5,
          job_id: jobA,
          tool: 'split_3d_model',
          created_at: iso(t0 + 2 * hour + 2000),
        },
        { kind: 'grant', amount: 500, job_id: null, tool: null, created_at: iso(t0 + hour) },
        { kind: 'grant', amount: 100, job_id: null, tool: null, created_at: iso(t0) },
      ],
      frozen: false,
      portal: true,
      subscription: null,
    })
    const later = await getBilling(models, acct, { now: at(t0 + 31 * day) })
    expect(later).toMatchObject({ balance: 500, spent_last_30_days_by_tool: {} })
  })

  // Runs last in this file's account history: it adds a job.
  it('keeps a Me answer until a write or the clock changes it, and answers the same as a fresh read', async () => {
    const kept = await getMe(models, acct, { now: at(t0 + 5 * hour), auth: 'key' })
    expect(isDeeplyFrozen(kept)).toBe(true)
    // Nothing written, and the oldest admission (t0 + 2 h) still inside the last 24 hours: the same answer.
    expect(await getMe(models, acct, { now: at(t0 + 2 * hour + day - 1), auth: 'key' })).toBe(kept)
    // The moment it leaves them, the answer is read again.
    const dayLater = await getMe(models, acct, { now: at(t0 + 2 * hour + day), auth: 'key' })
    expect(dayLater).not.toBe(kept)
    expect(dayLater!.usage.jobs_last_24h).toBe(2)
    // An earlier moment than the kept answer's is read again too (a clock may be set back in tests).
    expect((await getMe(models, acct, { now: at(t0 + 5 * hour), auth: 'key' }))!.usage.jobs_last_24h).toBe(3)
    // A write to the account's models: the next answer sees it.
    const jobD = `j_${'d'.repeat(26)}`
    await runJob(jobD, split, t0 + 6 * hour, 2, true)
    expect(await projections.waitForPosition(head, 5000)).toBe(true)
    const afterJob = await getMe(models, acct, { now: at(t0 + 7 * hour), auth: 'key' })
    expect(afterJob!.usage).toMatchObject({ jobs_last_24h: 4, jobs_last_24h_by_tool: { split_3d_model: 3 } })
    expect(afterJob!.credits.balance).toBe(kept!.credits.balance - 2)
    // Another account's writes leave this account's answer kept.
    const other = 'acct_queriesother000000'
    head = (
      await handleCommand(store, accountStream(other), accountDecider, {
        type: 'OpenAccount',
        data: {
          accountId: other,
          login: 'bo',
          email: null,
          signupLotId: 'lot_signup_bo',
          signupCredits: 100,
          signupExpiresAt: t0 + 30 * day,
          now: t0 + 6 * hour,
        },
      })
    ).position
    expect(await projections.waitForPosition(head, 5000)).toBe(true)
    expect(await getMe(models, acct, { now: at(t0 + 7 * hour), auth: 'key' })).toBe(afterJob)
    // A kept answer equals what a store that keeps nothing answers.
    expect(await getMe(new ReadModels(reads), acct, { now: at(t0 + 7 * hour), auth: 'key' })).toEqual(
      afterJob,
    )
  })

  const storageLimits = { pendingUploads: 10, storedBytes: 1_000_000 }
  /** Me with the account's storage caps and use, which change by time as files and upload URLs run out. */
  const meWithStorage = (ms: number) => getMe(models, acct, { now: at(ms), auth: 'key', storageLimits })

  it('keeps a Me answer with storage until a stored file runs out, to the millisecond', async () => {
    // Job A (input 10 bytes, output 5) finished at t0 + 2 h + 4 s and keeps its files for a day. From
    // t0 + 2 h + 1 day its admission is out of the window, and the next admission leaves it at
    // t0 + 3 h + 1 day, so between the two only the files' expiry changes the answer.
    const filesEnd = t0 + 2 * hour + 4000 + day
    const kept = await meWithStorage(t0 + 2 * hour + day)
    expect(await meWithStorage(filesEnd - 1)).toBe(kept)
    const after = await meWithStorage(filesEnd)
    expect(after).not.toBe(kept)
    const keptBytes = kept!.usage.stored_bytes!
    expect(keptBytes).toBeGreaterThanOrEqual(15)
    expect(after!.usage.stored_bytes).toBe(keptBytes - 15)
    expect(after!.usage.jobs_last_24h).toBe(kept!.usage.jobs_last_24h)
    // And it equals what a store that keeps nothing answers.
    expect(
      await getMe(new ReadModels(reads), acct, { now: at(filesEnd), auth: 'key', storageLimits }),
    ).toEqual(after)
  })

  it('keeps a Me answer with storage until a pending upload runs out, to the millisecond', async () => {
    // An upload URL valid for an hour from t0 + 10 h; nothing else changes with time before t0 + 11 h.
    const created = t0 + 10 * hour
    head = (
      await handleCommand(store, uploadStream('upl_queries'), uploadDecider, {
        type: 'CreateUpload',
        data: {
          uploadId: 'upl_queries',
          accountId: acct,
          filename: 'in.glb',
          maxBytes: 1000,
          urlValidMs: hour,
          now: created,
        },
      })
    ).position
    expect(await projections.waitForPosition(head, 5000)).toBe(true)
    const kept = await meWithStorage(created + 1)
    expect(kept!.usage.pending_uploads).toBe(1)
    expect(await meWithStorage(created + hour - 1)).toBe(kept)
    const after = await meWithStorage(created + hour)
    expect(after).not.toBe(kept)
    expect(after!.usage.pending_uploads).toBe(0)
    expect(
      await getMe(new ReadModels(reads), acct, { now: at(created + hour), auth: 'key', storageLimits }),
    ).toEqual(after)
  })

  it('counts active jobs as admitted minus released, and reads a document stored with their ids', async () => {
    const busy = 'acct_queriesbusy0000000'
    const command = async (c: AccountCommand) => {
      head = (await handleCommand(store, accountStream(busy), accountDecider, c)).position
    }
    await command({
      type: 'OpenAccount',
      data: {
        accountId: busy,
        login: 'cy',
        email: null,
        signupLotId: 'lot_signup_cy',
        signupCredits: 100,
        signupExpiresAt: t0 + 30 * day,
        now: t0,
      },
    })
    const jobs = ['e', 'f', 'g'].map((c) => `j_${c.repeat(26)}`)
    for (const jobId of jobs)
      await command({
        type: 'AdmitJob',
        data: {
          jobId,
          tool: pdf,
          idempotencyKey: null,
          requestHash: null,
          policy: { ...policy, maxActiveJobs: 5 },
          now: t0 + hour,
        },
      })
    await command({ type: 'FinishJob', data: { jobId: jobs[1]!, outcome: 'canceled', now: t0 + hour } })
    expect(await projections.waitForPosition(head, 5000)).toBe(true)
    const fresh = () => getMe(new ReadModels(reads), busy, { now: at(t0 + 2 * hour), auth: 'key' })
    expect((await fresh())!.usage.active_jobs).toBe(2)
    // A model written by an earlier version holds the ids; it reads as their count.
    const accounts = reads.collection<AccountDoc>('accounts_g1')
    const { activeJobCount: _count, ...stored } = (await accounts.get(busy))!
    const legacy = { ...stored, position: stored.position + 1, activeJobs: jobs }
    await reads.collection<typeof legacy>('accounts_g1').putGuarded([legacy])
    expect((await fresh())!.usage.active_jobs).toBe(3)
  })
})

describe('keys', () => {
  it('lists live keys, finds credentials by secret hash, and records last use without an event', async () => {
    expect(await listKeys(models, acct)).toEqual([
      {
        id: 'key_2',
        name: 'name key_2',
        prefix: 'kiln_sk_abcdef',
        created_at: iso(t0 + 5 * hour),
        last_used_at: null,
      },
    ])
    expect(await findCredentialBySecretHash(models, 'hash_key_1')).toEqual({
      id: 'key_1',
      accountId: acct,
      kind: 'api_key',
      revoked: true,
      expiresAt: null,
    })
    expect(await findCredentialBySecretHash(models, 'hash_tok')).toEqual({
      id: 'tok_1',
      accountId: acct,
      kind: 'console_token',
      revoked: false,
      expiresAt: iso(t0 + 90 * 24 * hour),
    })
    expect(await findCredentialBySecretHash(models, 'nope')).toBeNull()
    const headBefore = await store.headPosition()
    await recordKeyUse(models, 'key_2', at(t0 + 7 * hour))
    await recordKeyUse(models, 'key_2', at(t0 + 6 * hour))
    expect((await listKeys(models, acct))[0]!.last_used_at).toBe(iso(t0 + 7 * hour))
    expect(await store.headPosition()).toBe(headBefore)
  })
})

describe('read-your-writes', () => {
  it('waits for an append to be projected, and gives up after the timeout', async () => {
    await account({ type: 'Freeze', data: { disputeId: 'dp_1', now: t0 + 8 * hour } })
    expect(await projections.waitForPosition(head, 5000)).toBe(true)
    expect((await getBilling(models, acct, { now: at(t0 + 8 * hour) }))!.frozen).toBe(true)
    expect(await projections.waitForPosition(head + 1000, 50)).toBe(false)
    expect(await projections.lag()).toEqual({ jobs: 0, accounts: 0, keys: 0, passkeys: 0, storage: 0 })
  })
})
