// The file-backed SQLite store commits on its writer thread: while an append's commit (and its fsync)
// is under way, the event loop keeps turning, where committing on the loop stalls it until done.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'

const dir = mkdtempSync(join(tmpdir(), 'kiln-es-thread-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** How many turns of the event loop pass while one append is committed. */
async function turnsDuringAppend(store: SqliteEventStore, streamId: string): Promise<number> {
  let turns = 0
  let counting = true
  const tick = () => {
    if (!counting) return
    turns++
    setImmediate(tick)
  }
  const appended = store.append(
    streamId,
    [{ id: `${streamId}-1`, type: 'Noted', data: { n: 1 } }],
    'no_stream',
  )
  setImmediate(tick)
  await appended
  counting = false
  return turns
}

it('the event loop turns while a commit is on its way to disk, and not when the loop commits itself', async () => {
  const threaded = new SqliteEventStore(join(dir, 'threaded.db'))
  const inline = new SqliteEventStore(join(dir, 'inline.db'), { writerThread: false })
  try {
    expect(await turnsDuringAppend(threaded, 'a')).toBeGreaterThan(1)
    expect(await turnsDuringAppend(inline, 'a')).toBe(0)
    expect((await threaded.readStream('a')).map((e) => e.data)).toEqual([{ n: 1 }])
  } finally {
    await Promise.all([threaded.close(), inline.close()])
  }
})
