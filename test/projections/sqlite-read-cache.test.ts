// The SQLite read store serves documents it read before from memory: never one that this connection
// has since written, nor one another connection (another process, a rebuild) has committed over by
// the next turn of the event loop. Its WAL is checkpointed by a thread of its own, not by commits.
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
