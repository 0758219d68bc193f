// The SQLite read store's writer thread: it commits the read models' batches, so the commit's cost
// (the upserts through the tables' JSON indexes, the WAL writes) is paid off the event loop, which
// meanwhile serves requests. Like the event store's writer, it groups: every message that arrived
// while it was committing goes into its next transaction. Each transaction is published in the
// change serial (sqlite-change-serial.ts) before it is answered, so the store's connection knows
// these commits for its own and keeps its cached documents.
//
// Messages in: {id, writes: [{table, rows: [id, position, json][]}], counters: [key, value][]}.
// Out, one per transaction: {replies: [{id, skipped} | {id, error}]}, in the order the messages
// came; `skipped` lists the rows the position guard left as they were ("table id", rarely any).
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { openRun, publishCommit, readSerialSql } from './sqlite-change-serial.ts'
import { setCounterSql, upsertDocSql } from './sqlite-read-writes.ts'

export interface WriterBatch {
  id: number
  writes: { table: string; rows: [id: string, position: number, json: string][] }[]
  counters: [key: string, value: number][]
}

const { path, own, backstopCheckpointPages } = workerData as {
  path: string
  own: BigInt64Array
  backstopCheckpointPages: number
}
const db = new DatabaseSync(path, { timeout: 30_000 })
db.exec(
  `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = ${backstopCheckpointPages};`,
)
const readSerial = db.prepare(readSerialSql)
const setCounter = db.prepare(setCounterSql)
const upserts = new Map<string, StatementSync>()
const serialNow = () => (readSerial.get() as { serial: number }).serial

function upsertInto(table: string): StatementSync {
  let statement = upserts.get(table)
  if (!statement) {
    statement = db.prepare(upsertDocSql(table))
    upserts.set(table, statement)
  }
  return statement
}

openRun(own, serialNow())
let pending: WriterBatch[] = []

function commitPending(): void {
  const batches = pending
  pending = []
  try {
    db.exec('BEGIN IMMEDIATE')
    const start = serialNow()
    const skipped = batches.map(({ writes, counters }) => {
      const left: string[] = []
      for (const { table, rows } of writes) {
        const upsert = upsertInto(table)
        for (const [id, position, json] of rows)
          if (upsert.run(id, position, json).changes === 0) left.push(`${table} ${id}`)
      }
      for (const [key, value] of counters) setCounter.run(key, value)
      return left
    })
    const end = serialNow()
    db.exec('COMMIT')
    publishCommit(own, start, end)
    parentPort!.postMessage({ replies: batches.map(({ id }, i) => ({ id, skipped: skipped[i] })) })
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    const message = error instanceof Error ? error.message : String(error)
    parentPort!.postMessage({ replies: batches.map(({ id }) => ({ id, error: message })) })
  }
}

parentPort!.on('message', (message: WriterBatch) => {
  pending.push(message)
  if (pending.length === 1) setImmediate(commitPending)
})
