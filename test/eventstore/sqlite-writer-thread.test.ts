// The file-backed SQLite store commits on its writer thread: while an append's commit (and its fsync)
// is under way, the event loop keeps turning, where committing on the loop stalls it until done.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
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

it('batches sent while another commits land in the order they were made, each checked against the one before', async () => {
  const store = new SqliteEventStore(join(dir, 'pipelined.db'))
  try {
    const appends: Promise<unknown>[] = []
    // One append per turn of the event loop: each is its own batch, sent while earlier ones commit.
    for (let i = 0; i < 40; i++) {
      appends.push(
        store.append(
          'chain',
          [{ id: `chain-${i}`, type: 'Noted', data: { i } }],
          i === 0 ? 'no_stream' : i - 1,
        ),
      )
      await new Promise((resolve) => setImmediate(resolve))
    }
    // The same expected revision twice, in consecutive batches: the second must be refused.
    const first = store.append('race', [{ id: 'race-a', type: 'Noted', data: { who: 'a' } }], 'no_stream')
    await new Promise((resolve) => setImmediate(resolve))
    const second = store.append('race', [{ id: 'race-b', type: 'Noted', data: { who: 'b' } }], 'no_stream')
    await Promise.all(appends)
    await expect(first).resolves.toMatchObject({ nextRevision: 0 })
    await expect(second).rejects.toThrow(/expected/i)
    expect((await store.readStream('chain')).map((e) => e.data)).toEqual(
      Array.from({ length: 40 }, (_, i) => ({ i })),
    )
    expect((await store.readStream('race')).map((e) => e.data)).toEqual([{ who: 'a' }])
    const positions = (await store.readAll(0, 100)).map((e) => e.position)
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
  } finally {
    await store.close()
  }
})

it('a batch sent while another commits is committed by the writer without waiting for the event loop', async () => {
  const path = join(dir, 'back-to-back.db')
  const store = new SqliteEventStore(path)
  const observer = new DatabaseSync(path, { readOnly: true })
  const count = observer.prepare('SELECT COUNT(*) AS n FROM events')
  try {
    await store.append('warm', [{ id: 'warm-1', type: 'Noted', data: {} }], 'no_stream')
    const first = store.append('first', [{ id: 'first-1', type: 'Noted', data: {} }], 'no_stream')
    await new Promise((resolve) => setImmediate(resolve))
    // Sent in this turn, while the first batch is on the writer thread.
    const second = store.append('second', [{ id: 'second-1', type: 'Noted', data: {} }], 'no_stream')
    await new Promise((resolve) => setImmediate(resolve))
    // The event loop is now held: nothing here can read the first batch's answer or send anything.
    const until = Date.now() + 5000
    let committed = 0
    while (Date.now() < until && committed < 3) committed = (count.get() as { n: number }).n
    expect(committed).toBe(3)
    await Promise.all([first, second])
  } finally {
    observer.close()
    await store.close()
  }
})

it('an append the writer committed and answered just before it died is acknowledged, and later ones are refused', async () => {
  // The thread's error can overtake its last answers (in about half the tries on two cores): eight tries.
  for (let i = 0; i < 8; i++) {
    const store = new SqliteEventStore(join(dir, `writer-dies-${i}.db`), {
      writerModule: new URL('./fixtures/sqlite-writer-that-dies.ts', import.meta.url),
    })
    try {
      await expect(
        store.append('kept', [{ id: 'kept-1', type: 'Noted', data: {} }], 'no_stream'),
      ).resolves.toMatchObject({ nextRevision: 0 })
      await expect(
        store.append('after', [{ id: 'after-1', type: 'Noted', data: {} }], 'no_stream'),
      ).rejects.toThrow('the writer thread died')
      expect((await store.readStream('kept')).map((e) => e.id)).toEqual(['kept-1'])
      expect(await store.readStream('after')).toEqual([])
    } finally {
      await store.close()
    }
  }
})
