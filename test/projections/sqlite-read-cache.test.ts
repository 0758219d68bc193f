// The SQLite read store serves documents it read before from memory: never one that this connection
// has since written, nor one another connection (another process, a rebuild) has committed over by
// the next turn of the event loop. Its WAL is checkpointed by a thread of its own, not by commits.
// The models' batches are committed by its writer thread, whose commits are this process's own: they
// keep the documents other readers have cached (and leave the ones just written ready to read),
// while any other connection's commit still empties the cache by the next turn. A row the position
// guard refused is read back as stored, and closing the store waits for what was already sent.
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'

interface Note {
  id: string
  position: number
  text: string
}

const opened: SqliteReadStore[] = []
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
})

function twoConnections() {
  const path = join(mkdtempSync(join(tmpdir(), 'kiln-read-cache-')), 'read.db')
  const [here, elsewhere] = [new SqliteReadStore(path), new SqliteReadStore(path)]
  opened.push(here, elsewhere)
  return { here: here.collection<Note>('notes'), elsewhere: elsewhere.collection<Note>('notes') }
}

describe('SQLite read store cache', () => {
  it('sees its own write at once, in the same turn', async () => {
    const { here } = twoConnections()
    await here.putGuarded([{ id: 'a', position: 1, text: 'one' }])
    expect((await here.get('a'))?.text).toBe('one')
    await here.putGuarded([{ id: 'a', position: 2, text: 'two' }])
    expect((await here.get('a'))?.text).toBe('two')
  })

  it("sees another connection's commit by the next turn, for a changed and for a missing document", async () => {
    const { here, elsewhere } = twoConnections()
    await elsewhere.putGuarded([{ id: 'a', position: 1, text: 'one' }])
    await nextTurn()
    expect((await here.get('a'))?.text).toBe('one')
    expect(await here.get('b')).toBeNull()
    await elsewhere.putGuarded([
      { id: 'a', position: 2, text: 'two' },
      { id: 'b', position: 2, text: 'new' },
    ])
    await nextTurn()
    expect((await here.get('a'))?.text).toBe('two')
    expect((await here.get('b'))?.text).toBe('new')
  })

  it("changes the stamp and the peeked document for another connection's commit by the next turn", async () => {
    const { here, elsewhere } = twoConnections()
    await elsewhere.putGuarded([{ id: 'a', position: 1, text: 'one' }])
    await nextTurn()
    const first = await here.peek('a')
    const stamp = here.changeStamp()
    expect(await here.peek('a')).toBe(first)
    await elsewhere.putGuarded([{ id: 'a', position: 2, text: 'two' }])
    await nextTurn()
    expect(here.changeStamp()).not.toBe(stamp)
    expect((await here.peek('a'))?.text).toBe('two')
  })

  it('checkpoints on its own thread: the WAL reaches the database file with no commit doing it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kiln-read-checkpoint-')), 'read.db')
    const store = new SqliteReadStore(path)
    opened.push(store)
    const notes = store.collection<Note>('notes')
    const before = statSync(path).size
    // About 2,000 pages: past SQLite's default autocheckpoint, far below this store's backstop.
    for (let batch = 0; batch < 40; batch++)
      await notes.putGuarded(
        Array.from({ length: 50 }, (_, i) => ({
          id: `n${batch}-${i}`,
          position: 1,
          text: 'x'.repeat(3000),
        })),
      )
    expect(statSync(path).size).toBe(before)
    const deadline = Date.now() + 10_000
    while (statSync(path).size < 6_000_000 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(statSync(path).size).toBeGreaterThan(6_000_000)
  })

  it('hands every caller its own object', async () => {
    const { here } = twoConnections()
    await here.putGuarded([{ id: 'a', position: 1, text: 'one' }])
    const first = (await here.get('a'))!
    first.text = 'changed by a caller'
    expect((await here.get('a'))?.text).toBe('one')
  })
})

function open(
  path: string,
  options?: { writerThread?: boolean; writerModule?: URL; checkpointerModule?: URL },
) {
  const store = new SqliteReadStore(path, options)
  opened.push(store)
  return store
}

const newPath = () => join(mkdtempSync(join(tmpdir(), 'kiln-read-writer-')), 'read.db')

/** A batch through the writer thread, as a model's runner writes it. */
const writeBatch = (store: SqliteReadStore, docs: Note[], position: number) =>
  store.putGuardedWithCounter([{ collection: 'notes', docs }], { key: 'notes:checkpoint', value: position })

describe('SQLite read store writer thread', () => {
  it("commits batches with their checkpoint, and its own commits keep other documents' cached copies", async () => {
    const path = newPath()
    const here = open(path)
    const notes = here.collection<Note>('notes')
    await writeBatch(here, [{ id: 'a', position: 1, text: 'one' }], 1)
    await nextTurn()
    const cached = await notes.peek('a')
    expect(cached?.text).toBe('one')

    for (let i = 2; i <= 5; i++) {
      await writeBatch(here, [{ id: `b${i}`, position: i, text: `note ${i}` }], i)
      await nextTurn()
      // The same frozen object: the writer's commit did not empty the cache.
      expect(await notes.peek('a')).toBe(cached)
      expect((await notes.get(`b${i}`))?.text).toBe(`note ${i}`)
    }
    // What the thread wrote is in the file, for any connection.
    const elsewhere = open(path, { writerThread: false })
    expect(await elsewhere.getCounter('notes:checkpoint')).toBe(5)
    expect((await elsewhere.collection<Note>('notes').getMany(['a', 'b2', 'b5', 'none'])).length).toBe(3)
  })

  it("still sees another connection's commit by the next turn, between and after its own", async () => {
    const path = newPath()
    const here = open(path)
    const elsewhere = open(path, { writerThread: false })
    const notes = here.collection<Note>('notes')
    await writeBatch(here, [{ id: 'a', position: 1, text: 'one' }], 1)
    expect((await notes.get('a'))?.text).toBe('one')
    const stamp = notes.changeStamp()

    await elsewhere.collection<Note>('notes').putGuarded([{ id: 'a', position: 2, text: 'two' }])
    await writeBatch(here, [{ id: 'b', position: 3, text: 'mine' }], 3)
    await nextTurn()
    expect((await notes.get('a'))?.text).toBe('two')
    expect(notes.changeStamp()).not.toBe(stamp)

    // A foreign commit right after the writer's: the counter is past what the writer published.
    await writeBatch(here, [{ id: 'c', position: 4, text: 'mine too' }], 4)
    await nextTurn()
    expect((await notes.get('a'))?.text).toBe('two')
    await elsewhere.collection<Note>('notes').putGuarded([{ id: 'a', position: 5, text: 'three' }])
    await nextTurn()
    expect((await notes.get('a'))?.text).toBe('three')
    expect((await notes.getMany(['a', 'b', 'c'])).map((note) => note.text).sort()).toEqual([
      'mine',
      'mine too',
      'three',
    ])
  })

  it('serves a row the position guard refused as stored, not as sent', async () => {
    const path = newPath()
    const here = open(path)
    const elsewhere = open(path, { writerThread: false })
    const notes = here.collection<Note>('notes')
    expect(await notes.get('a')).toBeNull()
    await elsewhere.collection<Note>('notes').putGuarded([{ id: 'a', position: 9, text: 'newer' }])
    await writeBatch(here, [{ id: 'a', position: 3, text: 'older' }], 3)
    expect((await notes.get('a'))?.text).toBe('newer')
    await nextTurn()
    expect((await notes.get('a'))?.text).toBe('newer')

    // The same through the writer alone (a batch replayed after a restart): no foreign commit to
    // empty the cache, so only the thread's report of the skipped row keeps the sent copy out.
    await writeBatch(here, [{ id: 'b', position: 9, text: 'newer' }], 9)
    await writeBatch(here, [{ id: 'b', position: 3, text: 'older' }], 3)
    expect((await notes.get('b'))?.text).toBe('newer')
  })

  it('settles a batch its writer answered just before it died as committed, and commits later ones itself', async () => {
    // The thread's error can overtake its last answers (in about half the tries on two cores): eight tries.
    for (let i = 0; i < 8; i++) {
      const path = newPath()
      const here = open(path, {
        writerModule: new URL('./support/sqlite-read-writer-that-dies.ts', import.meta.url),
      })
      await expect(writeBatch(here, [{ id: 'a', position: 1, text: 'one' }], 1)).resolves.toBeUndefined()
      // A batch sent before the store hears of the death is refused (its runner writes it again);
      // once it has heard, batches are committed on this thread.
      for (let attempt = 1; ; attempt++) {
        try {
          await writeBatch(here, [{ id: 'b', position: 2, text: 'two' }], 2)
          break
        } catch (error) {
          expect((error as Error).message).toBe('the writer thread died')
          expect(attempt).toBe(1)
        }
      }
      const elsewhere = open(path, { writerThread: false })
      expect(await elsewhere.getCounter('notes:checkpoint')).toBe(2)
      const notes = await elsewhere.collection<Note>('notes').getMany(['a', 'b'])
      expect(notes.map((note) => note.text).sort()).toEqual(['one', 'two'])
    }
  })

  it('refuses what a dead writer held, and commits what waited for it here', async () => {
    const path = newPath()
    const here = open(path, {
      writerModule: new URL('./support/sqlite-read-writer-that-dies-at-once.ts', import.meta.url),
    })
    const first = writeBatch(here, [{ id: 'a', position: 1, text: 'one' }], 1)
    await nextTurn()
    // Sent while the first is with the writer: it waits for that answer, which never comes.
    const second = writeBatch(here, [{ id: 'b', position: 2, text: 'two' }], 2)
    await expect(first).rejects.toThrow('the writer thread died')
    await expect(second).resolves.toBeUndefined()
    const elsewhere = open(path, { writerThread: false })
    expect(await elsewhere.getCounter('notes:checkpoint')).toBe(2)
    expect((await elsewhere.collection<Note>('notes').getMany(['a', 'b'])).map((note) => note.id)).toEqual([
      'b',
    ])
  })

  it('goes on committing when its checkpointer thread fails', async () => {
    const path = newPath()
    const here = open(path, {
      checkpointerModule: new URL('./support/sqlite-checkpointer-that-dies.ts', import.meta.url),
    })
    // Long enough for the thread to start and fail before and between the commits.
    await new Promise((resolve) => setTimeout(resolve, 200))
    for (let i = 1; i <= 3; i++) await writeBatch(here, [{ id: `n${i}`, position: i, text: `note ${i}` }], i)
    expect(await open(path, { writerThread: false }).getCounter('notes:checkpoint')).toBe(3)
  })

  it('commits what was sent before it closes', async () => {
    const path = newPath()
    const here = new SqliteReadStore(path)
    const written = Array.from({ length: 20 }, (_, i) =>
      writeBatch(here, [{ id: `n${i}`, position: i + 1, text: `note ${i}` }], i + 1),
    )
    await here.close()
    await Promise.all(written)
    const reopened = open(path, { writerThread: false })
    expect(await reopened.getCounter('notes:checkpoint')).toBe(20)
    expect((await reopened.collection<Note>('notes').getMany(written.map((_, i) => `n${i}`))).length).toBe(20)
  })
})
