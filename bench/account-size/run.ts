// Decision cost against account size: accounts with 10, 10^4 and 10^5 past jobs (each admitted,
// charged and settled, one year of history), on the embedded SQLite store. For each: a full fold of
// the stream (what every decision cost before snapshots), a cold decision from the persisted
// snapshot, and warm decisions (cached state plus the stream's tail), with the state's size.
//
//   npm exec -- node bench/account-size/run.ts            (ACCOUNT_SIZES=10,10000,100000)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serialize } from 'node:v8'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountDecider } from '../../app/deciders.ts'
import { handleCommand, readState } from '../../app/handle-command.ts'
import { keepSnapshots, StreamSnapshots } from '../../app/stream-snapshots.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { decideAccount } from '../../domain/account/decide.ts'
import { accountStream } from '../../domain/account/events.ts'
import { evolveAccount, initialAccountState } from '../../domain/account/state.ts'
import type { SnapshotStore, StoredSnapshot } from '../../domain/ports/snapshot-store.ts'

const sizes = (process.env.ACCOUNT_SIZES ?? '10,10000,100000').split(',').map(Number)
const day = 86_400_000
const t0 = Date.parse('2025-11-01T00:00:00Z')
const tool = { id: 'split_3d_model', minPrice: 2, jobsPerDay: 1_000_000, jobsPerDayBeforePurchase: 1_000_000 }
const policy = { maxActiveJobs: 1, forgottenKeyMs: 30 * day }

/** The account's history as the deciders would have written it, appended in large batches. */
async function writeHistory(store: SqliteEventStore, accountId: string, jobs: number): Promise<number> {
  const stream = accountStream(accountId)
  let state = initialAccountState()
  let pending: { id: string; type: string; data: unknown }[] = []
  let revision = -1
  const flush = async () => {
    if (pending.length === 0) return
    await store.append(stream, pending, revision === -1 ? 'no_stream' : revision)
    revision += pending.length
    pending = []
  }
  const apply = async (command: AccountCommand) => {
    for (const event of decideAccount(command, state)) {
      state = evolveAccount(state, event)
      pending.push({ id: crypto.randomUUID(), type: event.type, data: event.data })
    }
    if (pending.length >= 2000) await flush()
  }
  await apply({
    type: 'OpenAccount',
    data: {
      accountId,
      login: 'bench',
      email: null,
      signupLotId: 'lot_signup',
      signupCredits: 0,
      signupExpiresAt: t0 + day,
      now: t0,
    },
  })
  const end = t0 + 365 * day
  await apply({
    type: 'GrantCredits',
    data: {
      lotId: 'lot_pack',
      kind: 'pack',
      credits: 10 * jobs + 1000,
      expiresAt: end + 400 * day,
      reason: 'bench',
      paymentRef: 'pay_1',
      now: t0,
    },
  })
  const spacing = Math.floor((365 * day) / Math.max(1, jobs))
  for (let i = 0; i < jobs; i++) {
    const now = t0 + i * spacing
    const jobId = `j_${i.toString(36).padStart(26, '0')}`
    await apply({
      type: 'AdmitJob',
      data: { jobId, tool, idempotencyKey: `key-${i}`, requestHash: null, policy, now },
    })
    await apply({ type: 'ChargeJob', data: { jobId, units: 1000, price: 2, now: now + 1000 } })
    await apply({ type: 'FinishJob', data: { jobId, outcome: 'succeeded', now: now + 2000 } })
  }
  await flush()
  return revision + 1
}

function memorySnapshots(): SnapshotStore {
  const saved = new Map<string, StoredSnapshot>()
  return {
    load: async (streamId) => saved.get(streamId) ?? null,
    save: async (streamId, snapshot) => void saved.set(streamId, snapshot),
  }
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6

const dir = mkdtempSync(join(tmpdir(), 'kiln-account-size-'))
const rows: string[] = []
try {
  for (const jobs of sizes) {
    const path = join(dir, `events-${jobs}.db`)
    const store = new SqliteEventStore(path)
    const accountId = `acct_${jobs}`
    const stream = accountStream(accountId)
    const events = await writeHistory(store, accountId, jobs)
    const now = t0 + 366 * day

    // Before: every decision folded the whole stream.
    const heapBefore = process.memoryUsage().heapUsed
    let start = process.hrtime.bigint()
    const { state: fullState } = await readState(store, stream, { ...accountDecider, snapshots: false })
    const fullFoldMs = ms(start)
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20

    // After: one cold decision writes a snapshot; a fresh process then starts from it.
    const persisted = memorySnapshots()
    const warmup = new StreamSnapshots(persisted, { every: 1 })
    keepSnapshots(store, warmup)
    await handleCommand(store, stream, accountDecider, { type: 'ExpireLots', data: { now } })
    const coldStore = new SqliteEventStore(path)
    keepSnapshots(coldStore, new StreamSnapshots(persisted))
    start = process.hrtime.bigint()
    await handleCommand(coldStore, stream, accountDecider, { type: 'ExpireLots', data: { now } })
    const coldMs = ms(start)

    // Warm: admissions and settlements, each reading the tail and appending (durable commits).
    const decisions = 50
    start = process.hrtime.bigint()
    for (let i = 0; i < decisions; i++) {
      const jobId = `j_warm${i.toString().padStart(22, '0')}`
      await handleCommand(coldStore, stream, accountDecider, {
        type: 'AdmitJob',
        data: { jobId, tool, idempotencyKey: `warm-${i}`, requestHash: null, policy, now: now + i },
      })
      await handleCommand(coldStore, stream, accountDecider, {
        type: 'FinishJob',
        data: { jobId, outcome: 'canceled', now: now + i },
      })
    }
    const warmMs = ms(start) / (decisions * 2)
    const stateKb = serialize(fullState).length / 1024
    rows.push(
      `| ${jobs.toLocaleString('en')} | ${events.toLocaleString('en')} | ${fullFoldMs.toFixed(1)} | ${heapMb.toFixed(1)} | ${coldMs.toFixed(2)} | ${warmMs.toFixed(2)} | ${stateKb.toFixed(1)} | ${fullState.jobs.size} |`,
    )
    await coldStore.close()
    await store.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
console.log(
  '| past jobs | events | full fold ms (before) | fold heap MB | cold decision from snapshot ms | warm decision ms | state KB | jobs kept in state |',
)
console.log('|---|---|---|---|---|---|---|---|')
for (const row of rows) console.log(row)
