// Appends/s and catch-up reads/s of the SQLite event store adapter, against raw node:sqlite doing
// the same rows with the same durability (WAL, synchronous=FULL, one transaction per append).
// Usage: npm run bench:eventstore [-- appends]
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { SqliteEventStore } from '../adapters/eventstore/sqlite.ts'

const appends = Number(process.argv[2] ?? 5000)
const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-es-'))
const payload = {
  accountId: 'acct_bench',
  jobId: 'j_0123456789abcdefghijklmnop',
  tool: 'split_3d_model',
  hold: 2,
  at: new Date().toISOString(),
}

async function adapterRun() {
  const store = new SqliteEventStore(join(dir, 'adapter.db'))
  const started = performance.now()
  for (let i = 0; i < appends; i++) {
    await store.append(
      `account-${i % 100}`,
      [{ id: randomUUID(), type: 'JobAdmitted', data: payload }],
      'any',
    )
  }
  const appendMs = performance.now() - started
  const readStarted = performance.now()
  let position = 0
  let read = 0
  for (;;) {
    const page = await store.readAll(position, 1000)
    if (page.length === 0) break
    read += page.length
    position = page.at(-1)!.position
  }
  const readMs = performance.now() - readStarted
  await store.close()
  return { appendMs, readMs, read }
}

function rawRun() {
  const db = new DatabaseSync(join(dir, 'raw.db'))
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
    CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL, revision INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, created_at TEXT NOT NULL,
      UNIQUE (stream_id, revision));`)
  const insert = db.prepare(
    'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const revisions = new Map<string, number>()
  const started = performance.now()
  for (let i = 0; i < appends; i++) {
    const stream = `account-${i % 100}`
    const revision = (revisions.get(stream) ?? -1) + 1
    revisions.set(stream, revision)
    db.exec('BEGIN IMMEDIATE')
    insert.run(
      stream,
      revision,
      randomUUID(),
      'JobAdmitted',
      JSON.stringify(payload),
      '{}',
      new Date().toISOString(),
    )
    db.exec('COMMIT')
  }
  const appendMs = performance.now() - started
  const select = db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT 1000')
  const readStarted = performance.now()
  let position = 0
  let read = 0
  for (;;) {
    const page = select.all(position) as { position: number; data: string }[]
    if (page.length === 0) break
    for (const row of page) JSON.parse(row.data)
    read += page.length
    position = page.at(-1)!.position
  }
  const readMs = performance.now() - readStarted
  db.close()
  return { appendMs, readMs, read }
}

const raw = rawRun()
const adapter = await adapterRun()
rmSync(dir, { recursive: true, force: true })

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000)
const rows = [
  ['appends/s (1 event, durable commit)', rate(appends, adapter.appendMs), rate(appends, raw.appendMs)],
  ['catch-up reads/s', rate(adapter.read, adapter.readMs), rate(raw.read, raw.readMs)],
] as const
console.log(`SQLite event store vs raw node:sqlite, ${appends} appends, Node ${process.version}`)
console.log('| measure | kiln adapter | raw node:sqlite | ratio |')
console.log('|---|---:|---:|---:|')
for (const [name, ours, peer] of rows)
  console.log(`| ${name} | ${ours} | ${peer} | ${(ours / peer).toFixed(2)} |`)
