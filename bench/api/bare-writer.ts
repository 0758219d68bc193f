// The bare server's commit thread: what durable job creation costs with nothing else behind it.
// One SQLite file in WAL mode with synchronous=FULL, as kiln's embedded event store, and the same
// group commit: every batch that arrived during the last commit goes into the next transaction.
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'

interface Row {
  stream: string
  revision: number
  id: string
  type: string
  data: string
}

const db = new DatabaseSync((workerData as { path: string }).path)
db.exec(`
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = FULL;
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    event_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (stream_id, revision)
  );
`)
const insert = db.prepare(
  'INSERT INTO events (stream_id, revision, event_id, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)',
)

let pending: { id: number; at: string; rows: Row[] }[] = []

function commit(): void {
  const batches = pending
  pending = []
  db.exec('BEGIN IMMEDIATE')
  for (const { at, rows } of batches)
    for (const row of rows) insert.run(row.stream, row.revision, row.id, row.type, row.data, at)
  db.exec('COMMIT')
  parentPort!.postMessage(batches.map(({ id }) => id))
}

parentPort!.on('message', (batch: { id: number; at: string; rows: Row[] }) => {
  pending.push(batch)
  if (pending.length === 1) setImmediate(commit)
})
