// The embedded event store: one SQLite file in WAL mode with synchronous=FULL, so an append is on
// disk when it is acknowledged. Appends run in BEGIN IMMEDIATE transactions: writers from several
// processes serialise on the database lock, and the autoincrement position is one global order in
// which a reader can never see a later event before an earlier one.
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

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = this.#appendSync(streamId, events, expected)
    this.#appended.emit('append', result.position)
    return result
  }

  #appendSync(streamId: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const s = this.#statements
    this.#db.exec('BEGIN IMMEDIATE')
    try {
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
          const last = s.byEventId.get(events.at(-1)!.id) as
            | { revision: number; position: number }
            | undefined
          this.#db.exec('COMMIT')
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
      this.#db.exec('COMMIT')
      return { nextRevision: revision, position }
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      throw error
    }
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
