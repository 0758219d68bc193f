// Account decisions from snapshots: the state a decision sees is exactly the state of a full fold,
// whether it comes from this process's cache, another process's appends, or a persisted snapshot
// read cold; a cold start reads the snapshot and the tail, not the history; and the state holds a
// window of jobs, not every job the account ever ran.
import { deserialize, serialize } from 'node:v8'
import { beforeEach, describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountDecider } from '../../app/deciders.ts'
import { handleCommand, readState } from '../../app/handle-command.ts'
import { keepSnapshots, StreamSnapshots } from '../../app/stream-snapshots.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { accountStream } from '../../domain/account/events.ts'
import { type AccountState, balanceAt, retainedJobsMs } from '../../domain/account/state.ts'
import type { EventStore } from '../../domain/ports/event-store.ts'
import type { SnapshotStore, StoredSnapshot } from '../../domain/ports/snapshot-store.ts'
import { admit, charge, day, finish, grant, open, t0 } from '../domain/account-fixtures.ts'

const stream = accountStream('acct_test')

function memorySnapshots(): SnapshotStore & { saved: Map<string, StoredSnapshot> } {
  const saved = new Map<string, StoredSnapshot>()
  return {
    saved,
    async load(streamId) {
      return saved.get(streamId) ?? null
    },
    async save(streamId, snapshot) {
      saved.set(streamId, snapshot)
    },
  }
}

/** A second handle on the same database file: another process, as far as caches go. */
function counting(store: EventStore) {
  const read = { events: 0 }
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readStream')
        return async (streamId: string, from?: number) => {
          const events = await target.readStream(streamId, from)
          read.events += events.length
          return events
        }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { store: proxy, read }
}

const run = (store: EventStore, command: AccountCommand) =>
  handleCommand(store, stream, accountDecider, command)

/** What decisions read of the state, comparable with toEqual. */
const view = (state: AccountState, now: number) => ({
  balance: balanceAt(state, now),
  jobs: [...state.jobs.keys()],
  active: [...state.activeJobIds],
  keys: [...state.idempotency.entries()],
  lots: [...state.lots.values()],
  hash: state.lastLedgerHash,
})

async function jobs(store: EventStore, from: number, count: number, start: number, spacing: number) {
  for (let i = from; i < from + count; i++) {
    const now = start + i * spacing
    await run(store, admit(`j_${i}`, now, { key: `k_${i}` }))
    await run(store, charge(`j_${i}`, 2, now + 1))
    await run(store, finish(`j_${i}`, i % 5 === 0 ? 'failed' : 'succeeded', now + 2))
  }
}

describe('account decisions from snapshots', () => {
  let path: string
  beforeEach(() => {
    path = `/tmp/kiln-snapshots-${process.pid}-${Math.random().toString(36).slice(2)}.db`
  })

  it('decides on the same state as a full fold, across caches, processes and a cold start', async () => {
    const persisted = memorySnapshots()
    const first = new SqliteEventStore(path)
    const second = new SqliteEventStore(path)
    keepSnapshots(first, new StreamSnapshots(persisted, { every: 40 }))
    keepSnapshots(second, new StreamSnapshots(persisted, { every: 40 }))
    await run(first, open(0))
    await run(first, grant('lot_a', 10_000, t0, t0 + 400 * day))
    // Two "processes" take turns: each must see what the other appended.
    for (let round = 0; round < 6; round++)
      await jobs(round % 2 === 0 ? first : second, round * 10, 10, t0, 60_000)

    const now = t0 + 10 * day
    const folded = (
      await readState(new SqliteEventStore(path), stream, { ...accountDecider, snapshots: false })
    ).state
    const fromFirst = (await run(first, { type: 'ExpireLots', data: { now } })).state
    const fromSecond = (await run(second, { type: 'ExpireLots', data: { now } })).state
    expect(view(fromFirst, now)).toEqual(view(folded, now))
    expect(view(fromSecond, now)).toEqual(view(folded, now))
    expect(persisted.saved.get(stream)!.revision).toBeGreaterThan(100)

    // A cold process: the persisted snapshot, then only the events after it.
    const cold = counting(new SqliteEventStore(path))
    keepSnapshots(cold.store, new StreamSnapshots(persisted, { every: 40 }))
    const snapshotRevision = persisted.saved.get(stream)!.revision
    const total = (await first.readStream(stream)).length
    const fromCold = (await run(cold.store, { type: 'ExpireLots', data: { now } })).state
    expect(view(fromCold, now)).toEqual(view(folded, now))
    expect(cold.read.events).toBe(total - snapshotRevision - 1)

    // Decisions still guard races: a repeated key answers with the first job, a spent balance refuses.
    const replay = await run(second, admit('j_other', now, { key: 'k_59' }))
    expect(replay.events).toEqual([])
    await first.close()
    await second.close()
  })

  it('keeps a window of finished jobs and keys, not the whole history', async () => {
    const store = new SqliteEventStore(path)
    keepSnapshots(store, new StreamSnapshots(null))
    await run(store, open(0))
    await run(store, grant('lot_a', 100_000, t0, t0 + 800 * day))
    // 120 jobs, one every 3 days: only the last 30 days' worth stay in the state.
    await jobs(store, 0, 120, t0, 3 * day)
    const state = (await run(store, { type: 'ExpireLots', data: { now: t0 + 360 * day } })).state
    const windowJobs = Math.ceil(retainedJobsMs / (3 * day)) + 1
    expect(state.jobs.size).toBeLessThanOrEqual(windowJobs)
    expect(state.idempotency.size).toBeLessThanOrEqual(windowJobs)
    expect(state.jobs.has('j_119')).toBe(true)
    expect(state.jobs.has('j_0')).toBe(false)
    // A key inside the window still answers with its job; an old one may start new work.
    expect((await run(store, admit('j_new', t0 + 360 * day, { key: 'k_119' }))).events).toEqual([])
    expect((await run(store, admit('j_new', t0 + 360 * day, { key: 'k_0' }))).events[0]?.type).toBe(
      'JobAdmitted',
    )
    expect(serialize(state).length).toBeLessThan(20_000)
    await store.close()
  })

  it('a snapshot taken before the state gained a field decides with that field at its initial value', async () => {
    const store = new SqliteEventStore(path)
    const persisted = memorySnapshots()
    keepSnapshots(store, new StreamSnapshots(persisted, { every: 1 }))
    await run(store, open(0))
    // The snapshot as an older version wrote it: no linked identities, no passkeys.
    const saved = persisted.saved.get(stream)!
    const old = deserialize(saved.state) as Partial<AccountState>
    delete old.identities
    delete old.passkeys
    persisted.saved.set(stream, { ...saved, state: serialize(old) })
    const cold = new SqliteEventStore(path)
    keepSnapshots(cold, new StreamSnapshots(persisted, { every: 1 }))
    const linked = await run(cold, {
      type: 'LinkIdentity',
      data: { provider: 'github', subject: '1', now: t0 + day },
    })
    expect(linked.events.map((e) => e.type)).toEqual(['IdentityLinked'])
    expect(linked.state.identities.has('github 1')).toBe(true)
    await cold.close()
    await store.close()
  })
})
