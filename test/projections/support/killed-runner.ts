// Child process for the crash test: runs the accounts projection over the given files and kills
// itself with SIGKILL at the third checkpoint, after that batch's documents were written.
import { SqliteEventStore } from '../../../adapters/eventstore/sqlite.ts'
import { accountsProjector } from '../../../projections/accounts/projector.ts'
import type { ReadStore } from '../../../projections/read-store.ts'
import { ProjectionRunner } from '../../../projections/runner.ts'
import { SqliteReadStore } from '../../../projections/sqlite-read-store.ts'

const [eventsFile, readFile] = process.argv.slice(2) as [string, string]
const reads: ReadStore = new SqliteReadStore(readFile)
// The path of a store without transactions (MongoDB, FerretDB): documents first, then the checkpoint.
// SQLite writes both in one commit, where this crash cannot fall between them.
reads.putGuardedWithCounter = undefined
let checkpoints = 0
const setCounter = reads.setCounter.bind(reads)
reads.setCounter = async (key, value) => {
  if (key.startsWith('checkpoint:') && ++checkpoints === 3) process.kill(process.pid, 'SIGKILL')
  await setCounter(key, value)
}
const runner = new ProjectionRunner(new SqliteEventStore(eventsFile), reads, accountsProjector, {
  batchSize: 40,
})
await runner.start()
