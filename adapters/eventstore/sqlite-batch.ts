// One group commit of the SQLite event store: every queued append inside one transaction, each in its
// own SAVEPOINT, so one fsync makes them all durable while each still succeeds or fails on its own (a
// wrong expected revision rolls back only its savepoint) and later appends see earlier ones. An
// append may span several streams (appendMany): they share its savepoint, so all land or none. Shared
// by the store's writer thread and its in-process mode, and free of anything that cannot cross a
// thread boundary: outcomes are plain data.
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import {
  type AppendResult,
  type ExpectedRevision,
  type StreamAppend,
  WrongExpectedVersionError,
} from '../../domain/ports/event-store.ts'

/** One append as its caller made it: a single stream, or several that commit together. */
export type AppendRequest = readonly StreamAppend[]

export type AppendFailure =
  | { kind: 'wrong_version'; streamId: string; expected: ExpectedRevision; actual: number | 'no_stream' }
  | { kind: 'other'; message: string }

/**
 * One append's outcome. `written` counts, per stream of the append, the events this transaction
 * inserted: 0 where they were all there already (a repeated append, acknowledged again).
 */
export type AppendOutcome = { results: AppendResult[]; written: number[] } | { failure: AppendFailure }

/** The events table: one row per event, its position the global order. */
export const eventsTable = `
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
`

export interface WriteStatements {
  streamHead: StatementSync
  byEventId: StatementSync
  insert: StatementSync
}

export const prepareWrites = (db: DatabaseSync): WriteStatements => ({
  streamHead: db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?'),
  byEventId: db.prepare('SELECT stream_id, revision, position FROM events WHERE event_id = ?'),
  insert: db.prepare(
    'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ),
})

/** The error an append's caller sees, rebuilt from its outcome. */
export function appendError(failure: AppendFailure): Error {
  return failure.kind === 'wrong_version'
    ? new WrongExpectedVersionError(failure.streamId, failure.expected, failure.actual)
    : new Error(failure.message)
}

/**
 * Writes the batch in one transaction and returns one outcome per append, in order. Throws when the
 * transaction itself fails (locked past the busy timeout, disk full): then nothing of it is durable.
 */
export function writeBatch(
  db: DatabaseSync,
  statements: WriteStatements,
  batch: readonly AppendRequest[],
  createdAt: string,
): AppendOutcome[] {
  const outcomes: AppendOutcome[] = []
  try {
    db.exec('BEGIN IMMEDIATE')
    for (const request of batch) {
      db.exec('SAVEPOINT append_one')
      try {
        const results: AppendResult[] = []
        const written: number[] = []
        for (const part of request) {
          const { result, inserted } = appendOne(statements, part, createdAt)
          results.push(result)
          written.push(inserted)
        }
        outcomes.push({ results, written })
        db.exec('RELEASE append_one')
      } catch (error) {
        db.exec('ROLLBACK TO append_one')
        db.exec('RELEASE append_one')
        outcomes.push({ failure: asFailure(error) })
      }
    }
    db.exec('COMMIT')
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
  return outcomes
}

function asFailure(error: unknown): AppendFailure {
  return error instanceof WrongExpectedVersionError
    ? { kind: 'wrong_version', streamId: error.streamId, expected: error.expected, actual: error.actual }
    : { kind: 'other', message: error instanceof Error ? error.message : String(error) }
}

function appendOne(
  s: WriteStatements,
  { streamId, events, expected }: StreamAppend,
  createdAt: string,
): { result: AppendResult; inserted: number } {
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
      const result = {
        nextRevision: last?.revision ?? existing.revision,
        position: last?.position ?? existing.position,
      }
      return { result, inserted: 0 }
    }
  }
  const matches =
    expected === 'any' || (expected === 'no_stream' ? head === null : head !== null && head === expected)
  if (!matches) throw new WrongExpectedVersionError(streamId, expected, head ?? 'no_stream')
  let revision = head ?? -1
  let position = 0
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
  return { result: { nextRevision: revision, position }, inserted: events.length }
}
