// What the shape of ids costs the SQLite event store's writer: group commits of job creations (an
// admission on one of 100 account streams, a creation on a new job stream, as the API appends
// them) through the writer thread's own `writeBatch`, once with random ids (UUIDv4 event ids,
// random job ids: how kiln made them before session 16) and once with kiln's (time-ordered job
// ids, deterministic event ids that begin with the event's time), at 1, 5 and 10 creations a
// commit. Prints the writer's CPU time per creation for each and the ratio. Durable as in the
// server (WAL, synchronous = FULL); each run starts on a fresh store after `warm` creations.
// Usage: node_modules/.bin/node bench/eventstore-ids.ts [creations] [warm]
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { type AppendRequest, prepareWrites, writeBatch } from '../adapters/eventstore/sqlite-batch.ts'
import { deterministicEventId } from '../app/event-ids.ts'
import { newJobId } from '../domain/ids.ts'

const creations = Number(process.argv[2] ?? 10_000)
const warm = Number(process.argv[3] ?? 20_000)
const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-ids-'))

type Ids = 'random' | 'ordered'

function creation(ids: Ids): AppendRequest {
  const at = new Date().toISOString()
  const jobId = ids === 'random' ? `j_${randomBytes(13).toString('hex')}` : newJobId(randomBytes, Date.now())
  const account = `account-acct_${Math.floor(Math.random() * 100)}`
  const job = `job-${jobId}`
  const event = (stream: string, type: string, data: Record<string, unknown>) => ({
    id: ids === 'random' ? randomUUID() : deterministicEventId(stream, type, data),
    type,
    data,
  })
  const common = { accountId: account.slice(8), jobId, tool: 'get_random_bytes', idempotencyKey: null, at }
  return [
    { streamId: account, expected: 'any', events: [event(account, 'JobAdmitted', { ...common, hold: 0 })] },
    {
      streamId: job,
      expected: 'no_stream',
      events: [event(job, 'JobCreated', { ...common, options: { length: 32, encoding: 'hex' } })],
    },
  ]
}

/** The writer's CPU µs per creation, `perCommit` creations a commit. */
function run(ids: Ids, perCommit: number): number {
  const path = join(dir, `${ids}-${perCommit}.db`)
  const db = new DatabaseSync(path)
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
    CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL, revision INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, created_at TEXT NOT NULL,
      UNIQUE (stream_id, revision));`)
  const statements = prepareWrites(db)
  const commits = (count: number) => {
    for (let done = 0; done < count; done += perCommit) {
      const batch = Array.from({ length: perCommit }, () => creation(ids))
      writeBatch(db, statements, batch, new Date().toISOString())
    }
  }
  commits(warm)
  const before = process.cpuUsage()
  commits(creations)
  const used = process.cpuUsage(before)
  db.close()
  return (used.user + used.system) / creations
}

try {
  console.log(
    `${creations} creations a run after ${warm} on a fresh store; CPU µs per creation (the batch's ids made inside)`,
  )
  console.log('| creations a commit | random ids | kiln ids | kiln ÷ random |')
  console.log('|---:|---:|---:|---:|')
  for (const perCommit of [1, 5, 10]) {
    const [random, ordered] = [run('random', perCommit), run('ordered', perCommit)]
    console.log(
      `| ${perCommit} | ${random.toFixed(0)} | ${ordered.toFixed(0)} | ${(ordered / random).toFixed(2)} |`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
