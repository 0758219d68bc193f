// The SQLite event store's writer thread: it owns the connection that appends, so a commit's fsync
// (milliseconds on a real disk) blocks this thread rather than the process's event loop, which
// meanwhile serves requests and sends the next appends.
//
// The thread groups the commits itself: every message that arrived while it was committing is
// delivered before its next immediate, and all of them go into the next transaction. So the next
// fsync starts as soon as the last one ends, without waiting for the event loop to hear back and
// send more. Messages: {id, batch, createdAt} in; out, one {replies: [{id, createdAt, outcomes} | {id, error}]}
// per transaction, in the order the batches came.
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { type AppendRequest, prepareWrites, writeBatch } from './sqlite-batch.ts'

const db = new DatabaseSync((workerData as { path: string }).path, { timeout: 30_000 })
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;')
const statements = prepareWrites(db)

interface Batch {
  id: number
  batch: AppendRequest[]
  createdAt: string
}

let pending: Batch[] = []

function commitPending(): void {
  const batches = pending
  pending = []
  // One transaction for all: its appends keep their order, and createdAt is the latest batch's.
  const appends = batches.flatMap(({ batch }) => batch)
  const createdAt = batches.at(-1)!.createdAt
  try {
    const outcomes = writeBatch(db, statements, appends, createdAt)
    const replies = []
    let next = 0
    for (const { id, batch } of batches) {
      replies.push({ id, createdAt, outcomes: outcomes.slice(next, next + batch.length) })
      next += batch.length
    }
    parentPort!.postMessage({ replies })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    parentPort!.postMessage({ replies: batches.map(({ id }) => ({ id, error: message })) })
  }
}

parentPort!.on('message', (message: Batch) => {
  pending.push(message)
  if (pending.length === 1) setImmediate(commitPending)
})
