// The bare server's commit thread: what durable job creation costs with nothing else behind it.
// One SQLite file in WAL mode with synchronous=FULL and kiln's events table, and the same group
// commit: every batch that arrived during the last commit goes into the next transaction.
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { eventsTable, prepareWrites } from '../../adapters/eventstore/sqlite-batch.ts'

interface Row {
  stream: string
  revision: number
  id: string
  type: string
  data: string
}

const db = new DatabaseSync((workerData as { path: string }).path)
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; ${eventsTable}`)
const { insert } = prepareWrites(db)

let pending: { id: number; at: string; rows: Row[] }[] = []

function commit(): void {
  const batches = pending
  pending = []
  db.exec('BEGIN IMMEDIATE')
  for (const { at, rows } of batches)
    for (const row of rows) insert.run(row.stream, row.revision, row.id, row.type, row.data, '{}', at)
  db.exec('COMMIT')
  parentPort!.postMessage(batches.map(({ id }) => id))
}

parentPort!.on('message', (batch: { id: number; at: string; rows: Row[] }) => {
  pending.push(batch)
  if (pending.length === 1) setImmediate(commit)
})
