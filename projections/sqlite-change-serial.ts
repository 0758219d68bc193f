// How the SQLite read store tells its own writer thread's commits from everyone else's.
//
// The store's connection keeps documents it read in memory while no other connection commits over
// them. SQLite's data_version says that some other connection committed, not which one, and the
// store's own writer thread (sqlite-read-writer.ts) is another connection. So every change to a
// document table bumps one counter in the file (`change_serial`, by trigger, whoever writes), and
// the writer thread publishes, in memory both threads share, the serials its commits covered:
// - `lastEnd`: the counter's value after its latest commit;
// - `runFrom`: the value at which its current unbroken run of commits began (it starts a new run
//   when it finds the counter moved by someone else since its previous commit).
// When data_version changed and the counter equals `lastEnd` while the run began at or before the
// serial the store last accounted for, every change since was the writer thread's own; anything
// else (another process, a rebuild, a commit not yet published) is treated as foreign.
import type { DatabaseSync } from 'node:sqlite'

/** The counter's table, created with the store. */
export function createChangeSerial(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS change_serial (id INTEGER PRIMARY KEY CHECK (id = 1), serial INTEGER NOT NULL);
    INSERT OR IGNORE INTO change_serial (id, serial) VALUES (1, 0);
  `)
}

/** Triggers that bump the counter on every row written to or deleted from `table` (quoted name). */
export function countChangesOf(db: DatabaseSync, table: string): void {
  const bare = table.slice(1, -1)
  for (const event of ['INSERT', 'UPDATE', 'DELETE'])
    db.exec(
      `CREATE TRIGGER IF NOT EXISTS "serial_${event.toLowerCase()}_${bare}" AFTER ${event} ON ${table}
       BEGIN UPDATE change_serial SET serial = serial + 1 WHERE id = 1; END`,
    )
}

export const readSerialSql = 'SELECT serial FROM change_serial WHERE id = 1'

const runFromSlot = 0
const lastEndSlot = 1

/** The shared record: two 64-bit integers, written by the writer thread, read by the store's. */
export const newOwnCommits = () => new BigInt64Array(new SharedArrayBuffer(16))

/** Writer side, after a commit that moved the counter from `start` to `end`. */
export function publishCommit(own: BigInt64Array, start: number, end: number): void {
  // A run continues while each commit starts where the previous ended. `runFrom` is stored before
  // `lastEnd`, and read after it, so a reader never pairs a new end with an old start.
  if (BigInt(start) !== Atomics.load(own, lastEndSlot)) Atomics.store(own, runFromSlot, BigInt(start))
  Atomics.store(own, lastEndSlot, BigInt(end))
}

/** Writer side, at start: the counter's value then opens the first run. */
export function openRun(own: BigInt64Array, serial: number): void {
  Atomics.store(own, runFromSlot, BigInt(serial))
  Atomics.store(own, lastEndSlot, BigInt(serial))
}

/** Reader side: were all changes after `accounted`, up to `serial`, the writer thread's own? */
export function allOwn(own: BigInt64Array, accounted: number, serial: number): boolean {
  const lastEnd = Atomics.load(own, lastEndSlot)
  const runFrom = Atomics.load(own, runFromSlot)
  return lastEnd === BigInt(serial) && runFrom <= BigInt(accounted)
}
