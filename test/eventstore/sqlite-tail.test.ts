// The SQLite store keeps the events its own commits inserted last (its tail) and answers readAll from
// it inside that run, so subscribers woken by an append read nothing back. What they get must be
// exactly what the file holds: the same positions, revisions, timestamps and data, no event of
// another process skipped, no repeated append delivered twice.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import type { NewEvent, RecordedEvent } from '../../domain/ports/event-store.ts'

const dir = mkdtempSync(join(tmpdir(), 'kiln-es-tail-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const noted = (id: string, data: unknown, metadata?: Record<string, unknown>): NewEvent => ({
  id,
  type: 'Noted',
  data,
  ...(metadata ? { metadata } : {}),
})

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 5) {
    if (waited > 5_000) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

it('a subscriber gets what the file holds: own appends, another process’s between them, no repeats', async () => {
  const path = join(dir, 'mixed.db')
  // Every commit at its own second, so a timestamp taken from the wrong commit shows.
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const tick = () => {
    clock += 1000
    return new Date(clock)
  }
  const own = new SqliteEventStore(path, { pollIntervalMs: 20, now: tick })
  const other = new SqliteEventStore(path, { pollIntervalMs: 20 })
  const seen: RecordedEvent[] = []
  const subscription = own.subscribeToAll({ fromPosition: 0, onEvent: (event) => void seen.push(event) })
  try {
    await own.append(
      'a',
      [noted('a0', { n: 0 }), noted('a1', { n: 1, nested: { list: [1, 2] } })],
      'no_stream',
    )
    await other.append('b', [noted('b0', { from: 'other' })], 'no_stream')
    // Two streams in one append, with metadata; then the same append again (acknowledged, not written).
    const both = [
      { streamId: 'a', events: [noted('a2', { n: 2 }, { causation: 'x' })], expected: 1 as const },
      { streamId: 'c', events: [noted('c0', { n: 0 })], expected: 'no_stream' as const },
    ]
    const [first] = await own.appendMany(both)
    await own.appendMany(both)
    const again = await own.readAll(first!.position - 1, 2)
    await expect(own.append('a', [noted('a-stale', {})], 0)).rejects.toThrow(/expected revision/)
    await other.append('b', [noted('b1', { from: 'other' })], 0)
    await own.append('a', [noted('a3', { n: 3 })], 2)
    const fresh = new SqliteEventStore(path)
    try {
      const stored = await fresh.readAll(0, 100)
      expect(stored.map((e) => e.id)).toEqual(['a0', 'a1', 'b0', 'a2', 'c0', 'b1', 'a3'])
      await until(() => seen.length >= stored.length)
      expect(seen).toEqual(stored)
      expect(again).toEqual(stored.slice(3, 5))
      // Read from inside the run too, as a subscriber resuming there would.
      expect(await own.readAll(stored[5]!.position - 1, 100)).toEqual(stored.slice(5))
      expect(await own.readAll(stored[3]!.position - 1, 1)).toEqual(stored.slice(3, 4))
    } finally {
      await fresh.close()
    }
  } finally {
    await subscription.stop()
    await Promise.all([own.close(), other.close()])
  }
})

it('readAll inside the run of its own latest commits reads nothing from the file', async () => {
  const path = join(dir, 'memory.db')
  const store = new SqliteEventStore(path)
  const raw = new DatabaseSync(path)
  try {
    await store.append('s', [noted('s0', { n: 0 }), noted('s1', { n: 1 })], 'no_stream')
    // Changed behind the store's back: a read of the file would see it.
    raw.exec(`UPDATE events SET data = '{"n":"changed"}'`)
    const [first, second] = await store.readAll(0, 10)
    expect([first?.data, second?.data]).toEqual([{ n: 0 }, { n: 1 }])
    // Past the run (the head itself), the file is read.
    expect(await store.readAll(second!.position, 10)).toEqual([])
    expect((await store.readStream('s')).map((e) => e.data)).toEqual([{ n: 'changed' }, { n: 'changed' }])
  } finally {
    raw.close()
    await store.close()
  }
})
