// The event store contract: every adapter runs this suite.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type EventStore,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../domain/ports/event-store.ts'

const ev = (type: string, data: unknown = {}) => ({ id: randomUUID(), type, data })

export function eventStoreContract(name: string, open: () => Promise<EventStore>) {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore
    const stream = () => `test-${randomUUID()}`

    beforeAll(async () => {
      store = await open()
    })
    afterAll(async () => {
      await store?.close()
    })

    it('appends to a new stream with no_stream and reads it back in order', async () => {
      const s = stream()
      const result = await store.append(s, [ev('A', { n: 1 }), ev('B', { n: 2 })], 'no_stream')
      expect(result.nextRevision).toBe(1)
      const events = await store.readStream(s)
      expect(events.map((e) => [e.type, e.revision, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ])
      expect(events[1]!.position).toBeGreaterThan(events[0]!.position)
      expect(events[1]!.position).toBe(result.position)
    })

    it('refuses no_stream on an existing stream and a stale exact revision', async () => {
      const s = stream()
      await store.append(s, [ev('A')], 'no_stream')
      await expect(store.append(s, [ev('B')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedVersionError)
      await store.append(s, [ev('B')], 0)
      await expect(store.append(s, [ev('C')], 0)).rejects.toBeInstanceOf(WrongExpectedVersionError)
      await store.append(s, [ev('C')], 'any')
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C'])
    })

    it('an exact revision on a missing stream is a conflict', async () => {
      await expect(store.append(stream(), [ev('A')], 3)).rejects.toBeInstanceOf(WrongExpectedVersionError)
    })

    it('a repeated append of the same event ids is a no-op', async () => {
      const s = stream()
      const events = [ev('A'), ev('B')]
      const first = await store.append(s, events, 'no_stream')
      const again = await store.append(s, events, 'no_stream')
      expect(again.nextRevision).toBe(first.nextRevision)
      expect(await store.readStream(s)).toHaveLength(2)
    })

    it('concurrent appends settle one by one: racers on one stream, bystanders on others', async () => {
      const contested = stream()
      const others = Array.from({ length: 20 }, () => stream())
      const settled = await Promise.allSettled([
        ...Array.from({ length: 10 }, (_, i) => store.append(contested, [ev('Racer', { i })], 'no_stream')),
        ...others.map((s) => store.append(s, [ev('Bystander'), ev('Bystander')], 'no_stream')),
        store.append(stream(), [ev('A')], 5),
      ])
      const racers = settled.slice(0, 10)
      expect(racers.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      for (const r of racers.filter((r) => r.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError)
      const bystanders = settled.slice(10, 30)
      expect(bystanders.every((r) => r.status === 'fulfilled')).toBe(true)
      expect(settled[30]!.status).toBe('rejected')
      const positions = bystanders.map(
        (r) => (r as PromiseFulfilledResult<{ position: number }>).value.position,
      )
      expect(new Set(positions).size).toBe(20)
      expect(await store.readStream(contested)).toHaveLength(1)
      for (const s of others) expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1])
    })

    it('reads a missing stream as empty, and from a revision', async () => {
      expect(await store.readStream(stream())).toEqual([])
      const s = stream()
      await store.append(s, [ev('A'), ev('B'), ev('C')], 'no_stream')
      expect((await store.readStream(s, 1)).map((e) => e.type)).toEqual(['B', 'C'])
    })

    it('reads all in one global order from a position', async () => {
      const head = await store.headPosition()
      const a = stream()
      const b = stream()
      await store.append(a, [ev('A1')], 'no_stream')
      await store.append(b, [ev('B1')], 'no_stream')
      await store.append(a, [ev('A2')], 0)
      const all = (await store.readAll(head, 1000)).filter((e) => e.streamId === a || e.streamId === b)
      expect(all.map((e) => e.type)).toEqual(['A1', 'B1', 'A2'])
      expect(await store.headPosition()).toBe(all.at(-1)!.position)
      const after = await store.readAll(all[0]!.position, 1000)
      expect(after.map((e) => e.type)).not.toContain('A1')
    })

    it('a subscription catches up from a checkpoint, then stays live', async () => {
      const s = stream()
      await store.append(s, [ev('Old')], 'no_stream')
      const checkpoint = await store.headPosition()
      await store.append(s, [ev('Caught')], 0)
      const seen: RecordedEvent[] = []
      let resolveLive!: () => void
      const live = new Promise<void>((resolve) => {
        resolveLive = resolve
      })
      const subscription = store.subscribeToAll({
        fromPosition: checkpoint,
        onEvent(event) {
          if (event.streamId !== s) return
          seen.push(event)
          if (event.type === 'Live') resolveLive()
        },
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      await store.append(s, [ev('Live')], 1)
      await live
      await subscription.stop()
      expect(seen.map((e) => e.type)).toEqual(['Caught', 'Live'])
    })
  })
}
