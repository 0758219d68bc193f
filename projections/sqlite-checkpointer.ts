// The SQLite read store's checkpointer thread. Read models are written on the event loop with
// synchronous=NORMAL: a commit appends to the WAL without an fsync, but every ~1000 WAL pages the
// committing connection copied them into the database file and fsync'd it, inside a commit, on the
// event loop (about 60% of the read-model write time during job creation, by the profile). The
// store's own connection now checkpoints only as a backstop, and this thread's connection does it
// every `intervalMs`, PASSIVE: it never waits for or blocks a reader or a writer.
import { DatabaseSync } from 'node:sqlite'
import { workerData } from 'node:worker_threads'

const { path, intervalMs } = workerData as { path: string; intervalMs: number }
const db = new DatabaseSync(path, { timeout: 0 })

setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } catch {
    // Busy (another process checkpointing, a schema change): the next turn tries again.
  }
}, intervalMs)
