// The SQLite event store's writer thread: it owns the connection that appends, so a commit's fsync
// (milliseconds on a real disk) blocks this thread rather than the process's event loop, which
// meanwhile serves requests and queues the next batch. Messages: {id, batch, createdAt} in,
// {id, outcomes} or {id, error} out.
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { type AppendRequest, prepareWrites, writeBatch } from './sqlite-batch.ts'

const db = new DatabaseSync((workerData as { path: string }).path, { timeout: 30_000 })
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;')
const statements = prepareWrites(db)

parentPort!.on(
  'message',
  ({ id, batch, createdAt }: { id: number; batch: AppendRequest[]; createdAt: string }) => {
    try {
      parentPort!.postMessage({ id, outcomes: writeBatch(db, statements, batch, createdAt) })
    } catch (error) {
      parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
    }
  },
)
