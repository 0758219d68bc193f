// Snapshots of folded stream state, so a decision on a long stream (an account with 100,000 past jobs)
// reads only the events since the last one instead of the whole history:
// - in memory: the last folded state of each recently used stream, per event store, advanced by
//   reading the stream's tail before each decision (other processes may have appended);
// - persisted: every `every` events a serialized copy goes to a SnapshotStore (the read store), so a
//   process that starts cold reads one snapshot and a short tail.
// Commands on one stream are serialized inside a process while they use its cached state; across
// processes the expected revision of the append still decides who wins, as without snapshots.
import { deserialize, serialize } from 'node:v8'
import type { EventStore } from '../domain/ports/event-store.ts'
import type { SnapshotStore } from '../domain/ports/snapshot-store.ts'

export interface CachedStream<State> {
  /** Revision of the last event folded into `state`; -1 for a stream with no events. */
  revision: number
  position: number
  state: State
  /** Revision of the last persisted snapshot. */
  persisted: number
  /**
   * When `state` was last known to be the stream's head (performance.now(): its tail was read, or
   * this process appended to it); -Infinity for an entry just loaded.
   */
  currentAt: number
}

const maxCachedStreams = 10_000

export class StreamSnapshots {
  readonly #persisted: SnapshotStore | null
  readonly #every: number
  readonly #cache = new Map<string, CachedStream<unknown>>()
  readonly #locks = new Map<string, Promise<unknown>>()

  constructor(persisted: SnapshotStore | null, { every = 500 }: { every?: number } = {}) {
    this.#persisted = persisted
    this.#every = every
  }

  /** Runs `work` with no other command of this process on the same stream in between. */
  async exclusive<T>(streamId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(streamId) ?? Promise.resolve()
    const run = before.then(work, work)
    const settled = run.then(
      () => {},
      () => {},
    )
    this.#locks.set(streamId, settled)
    try {
      return await run
    } finally {
      if (this.#locks.get(streamId) === settled) this.#locks.delete(streamId)
    }
  }

  /** The cached state, else the persisted snapshot, else a fresh state at revision -1. */
  async get<State>(streamId: string, initial: () => State): Promise<CachedStream<State>> {
    const cached = this.#cache.get(streamId) as CachedStream<State> | undefined
    if (cached) {
      // Most recently used last: the first entry is the one to evict.
      this.#cache.delete(streamId)
      this.#cache.set(streamId, cached)
      return cached
    }
    const stored = await this.#persisted?.load(streamId).catch(() => null)
    const entry: CachedStream<State> = stored
      ? {
          revision: stored.revision,
          position: stored.position,
          // A snapshot taken before the state gained a field lacks it; no event had set it then, so
          // the field's initial value is exact.
          state: Object.assign(initial() as object, deserialize(stored.state)) as State,
          persisted: stored.revision,
          currentAt: Number.NEGATIVE_INFINITY,
        }
      : { revision: -1, position: 0, state: initial(), persisted: -1, currentAt: Number.NEGATIVE_INFINITY }
    this.#cache.set(streamId, entry)
    if (this.#cache.size > maxCachedStreams) this.#cache.delete(this.#cache.keys().next().value!)
    return entry
  }

  /** The cached state when it was known to be the stream's head within the last `withinMs`; else null. */
  recent<State>(streamId: string, withinMs: number): CachedStream<State> | null {
    const cached = this.#cache.get(streamId) as CachedStream<State> | undefined
    return cached && performance.now() - cached.currentAt <= withinMs ? cached : null
  }

  /** Forgets the cached state (after a failure left it uncertain); the next use reloads it. */
  drop(streamId: string): void {
    this.#cache.delete(streamId)
  }

  /** Persists the state when enough events have passed since the last snapshot. */
  async maybePersist(streamId: string, entry: CachedStream<unknown>): Promise<void> {
    if (!this.#persisted || entry.revision - entry.persisted < this.#every) return
    const snapshot = { revision: entry.revision, position: entry.position, state: serialize(entry.state) }
    await this.#persisted.save(streamId, snapshot).then(
      () => {
        entry.persisted = snapshot.revision
      },
      () => {},
    )
  }
}

/** Which event stores keep snapshots, and where (set once by the composition root). */
const registry = new WeakMap<EventStore, StreamSnapshots>()

export function keepSnapshots(store: EventStore, snapshots: StreamSnapshots): void {
  registry.set(store, snapshots)
}

export const snapshotsOf = (store: EventStore): StreamSnapshots | undefined => registry.get(store)
