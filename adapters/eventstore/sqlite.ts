// The embedded event store: one SQLite file in WAL mode with synchronous=FULL, so an append is on
// disk when it is acknowledged. Appends run in BEGIN IMMEDIATE transactions: writers from several
// processes serialise on the database lock, and the autoincrement position is one global order in
// which a reader can never see a later event before an earlier one.
//
// Group commit: appends that arrive while this process is busy (concurrent requests) are queued and
// written together, each inside its own SAVEPOINT within one transaction, so one fsync makes many
// appends durable. Each append still succeeds or fails on its own (a wrong expected revision rolls
// back only its savepoint), later appends in a batch see earlier ones, and none is acknowledged
// before the COMMIT that holds it.
import { EventEmitter } from 'node:events'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedVersionError,
} from '../../domain/ports/event-store.ts'
import { startPollingSubscription } from './polling-subscription.ts'

interface PendingAppend {
  streamId: string
  events: NewEvent[]
  expected: ExpectedRevision
  resolve: (result: AppendResult) => void
  reject: (error: unknown) => void
}

interface Row {
  position: number
  stream_id: string
  revision: number
  event_id: string
  type: string
  data: string
  metadata: string
  created_at: string
}

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
  createdAt: row.created_at,
})

export interface SqliteEventStoreOptions {
  /** How often other processes' appends are looked for while a subscription is live. */
  pollIntervalMs?: number
  now?: () => Date
}

export class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync
  readonly #appended = new EventEmitter()
  readonly #pollIntervalMs: number
  readonly #now: () => Date
  #queue: PendingAppend[] = []
  readonly #statements: {
    streamHead: StatementSync
    byEventId: StatementSync
    insert: StatementSync
    readStream: StatementSync
    readAll: StatementSync
    head: StatementSync
  }

  constructor(path: string, options: SqliteEventStoreOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, { timeout: 30_000 })
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = FULL;
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        event_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );
    `)
    this.#appended.setMaxListeners(0)
    this.#pollIntervalMs = options.pollIntervalMs ?? 200
    this.#now = options.now ?? (() => new Date())
    this.#statements = {
      streamHead: this.#db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?'),
      byEventId: this.#db.prepare('SELECT stream_id, revision, position FROM events WHERE event_id = ?'),
      insert: this.#db.prepare(
        'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      readStream: this.#db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision',
      ),
      readAll: this.#db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.#db.prepare('SELECT COALESCE(MAX(position), 0) AS position FROM events'),
    }
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      if (this.#queue.push({ streamId, events, expected, resolve, reject }) === 1)
        setImmediate(() => this.#flush())
    })
  }

  /** Writes every queued append in one transaction, one savepoint each, and settles them after COMMIT. */
  #flush(): void {
    const batch = this.#queue
    this.#queue = []
    const outcomes: Array<{ result: AppendResult } | { error: unknown }> = []
    try {
      this.#db.exec('BEGIN IMMEDIATE')
      for (const request of batch) {
        this.#db.exec('SAVEPOINT append_one')
        try {
          outcomes.push({
            result: this.#appendInTransaction(request.streamId, request.events, request.expected),
          })
          this.#db.exec('RELEASE append_one')
        } catch (error) {
          this.#db.exec('ROLLBACK TO append_one')
          this.#db.exec('RELEASE append_one')
          outcomes.push({ error })
        }
      }
      this.#db.exec('COMMIT')
    } catch (error) {
      // BEGIN or COMMIT failed (locked past the timeout, disk full): nothing of the batch is durable.
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      for (const request of batch) request.reject(error)
      return
    }
    let head = 0
    for (const [i, request] of batch.entries()) {
      const outcome = outcomes[i]!
      if ('result' in outcome) {
        head = Math.max(head, outcome.result.position)
        request.resolve(outcome.result)
      } else request.reject(outcome.error)
    }
    if (head > 0) this.#appended.emit('append', head)
  }

  #appendInTransaction(streamId: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const s = this.#statements
    const head = (s.streamHead.get(streamId) as { revision: number | null }).revision
    const first = events[0]
    if (first) {
      const existing = s.byEventId.get(first.id) as
        | { stream_id: string; revision: number; position: number }
        | undefined
      if (existing) {
        // The same events were appended before (a retry): acknowledge them again, append nothing.
        if (existing.stream_id !== streamId)
          throw new Error(`Event ${first.id} belongs to stream ${existing.stream_id}`)
        const last = s.byEventId.get(events.at(-1)!.id) as { revision: number; position: number } | undefined
        return {
          nextRevision: last?.revision ?? existing.revision,
          position: last?.position ?? existing.position,
        }
      }
    }
    const matches =
      expected === 'any' || (expected === 'no_stream' ? head === null : head !== null && head === expected)
    if (!matches) throw new WrongExpectedVersionError(streamId, expected, head ?? 'no_stream')
    let revision = head ?? -1
    let position = 0
    const createdAt = this.#now().toISOString()
    for (const event of events) {
      revision += 1
      const info = s.insert.run(
        streamId,
        revision,
        event.id,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata ?? {}),
        createdAt,
      )
      position = Number(info.lastInsertRowid)
    }
    return { nextRevision: revision, position }
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    return (this.#statements.readStream.all(streamId, fromRevision) as unknown as Row[]).map(toRecorded)
  }

  async readAll(fromPosition: number, maxCount: number): Promise<RecordedEvent[]> {
    return (this.#statements.readAll.all(fromPosition, maxCount) as unknown as Row[]).map(toRecorded)
  }

  async headPosition(): Promise<number> {
    return (this.#statements.head.get() as { position: number }).position
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return startPollingSubscription(this, this.#appended, this.#pollIntervalMs, options)
  }

  async close(): Promise<void> {
    this.#appended.removeAllListeners()
    if (this.#db.isOpen) this.#db.close()
  }
}
