// The event store contract: every adapter runs this suite.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type EventStore,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../domain/ports/event-store.ts'

const ev = (type: string, data: unknown = {}) => ({ id: randomUUID(), type, data })

export interface ContractOptions {
  /**
   * Whether appendMany is one atomic commit. KurrentDB before 25.1 has no multi-stream append: there
   * the adapter appends stream by stream, and only the conflict detection is asked of it.
   */
  atomicAcrossStreams?: boolean
}

export function eventStoreContract(
  name: string,
  open: () => Promise<EventStore>,
  { atomicAcrossStreams = true }: ContractOptions = {},
) {
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

    it('appends to several streams at once, each at its expected revision', async () => {
      const [account, job] = [stream(), stream()]
      await store.append(account, [ev('Opened')], 'no_stream')
      const results = await store.appendMany([
        { streamId: account, events: [ev('Admitted', { job })], expected: 0 },
        { streamId: job, events: [ev('Created'), ev('Queued')], expected: 'no_stream' },
      ])
      expect(results.map((r) => r.nextRevision)).toEqual([1, 1])
      const [accountEvents, jobEvents] = [await store.readStream(account), await store.readStream(job)]
      expect(accountEvents.map((e) => e.type)).toEqual(['Opened', 'Admitted'])
      expect(jobEvents.map((e) => e.type)).toEqual(['Created', 'Queued'])
      expect(results[0]!.position).toBeGreaterThanOrEqual(accountEvents[1]!.position)
      expect(results[1]!.position).toBeGreaterThanOrEqual(jobEvents[1]!.position)
    })

    it('a conflict on any stream of appendMany fails it, naming that stream', async () => {
      const [account, job] = [stream(), stream()]
      await store.append(account, [ev('Opened')], 'no_stream')
      await store.append(job, [ev('Squatter')], 'no_stream')
      const onFirst = store.appendMany([
        { streamId: account, events: [ev('Admitted')], expected: 'no_stream' },
        { streamId: stream(), events: [ev('Created')], expected: 'no_stream' },
      ])
      await expect(onFirst).rejects.toBeInstanceOf(WrongExpectedVersionError)
      await expect(onFirst).rejects.toMatchObject({ streamId: account })
      const onSecond = store.appendMany([
        { streamId: account, events: [ev('Admitted')], expected: 0 },
        { streamId: job, events: [ev('Created')], expected: 'no_stream' },
      ])
      await expect(onSecond).rejects.toBeInstanceOf(WrongExpectedVersionError)
      await expect(onSecond).rejects.toMatchObject({ streamId: job, actual: 0 })
    })

    it.skipIf(!atomicAcrossStreams)('appendMany writes every stream or none', async () => {
      const [account, job, fresh] = [stream(), stream(), stream()]
      await store.append(account, [ev('Opened')], 'no_stream')
      await store.append(job, [ev('Squatter')], 'no_stream')
      // The first stream's part is valid and the second's is not: the first must not land either.
      await expect(
        store.appendMany([
          { streamId: account, events: [ev('Admitted')], expected: 0 },
          { streamId: fresh, events: [ev('Created')], expected: 'no_stream' },
          { streamId: job, events: [ev('Created')], expected: 'no_stream' },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedVersionError)
      expect((await store.readStream(account)).map((e) => e.type)).toEqual(['Opened'])
      expect(await store.readStream(fresh)).toEqual([])
      expect((await store.readStream(job)).map((e) => e.type)).toEqual(['Squatter'])
    })

    it('racing appendMany on one shared stream: one wins whole, the others leave nothing', async () => {
      const account = stream()
      await store.append(account, [ev('Opened')], 'no_stream')
      const jobs = Array.from({ length: 8 }, () => stream())
      const settled = await Promise.allSettled(
        jobs.map((job) =>
          store.appendMany([
            { streamId: account, events: [ev('Admitted', { job })], expected: 0 },
            { streamId: job, events: [ev('Created')], expected: 'no_stream' },
          ]),
        ),
      )
      const winners = settled.flatMap((r, i) => (r.status === 'fulfilled' ? [jobs[i]!] : []))
      expect(winners).toHaveLength(1)
      for (const r of settled.filter((r) => r.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError)
      const admitted = (await store.readStream(account)).slice(1)
      expect(admitted.map((e) => (e.data as { job: string }).job)).toEqual(winners)
      const created = await Promise.all(jobs.map((job) => store.readStream(job)))
      expect(jobs.filter((_, i) => created[i]!.length > 0)).toEqual(winners)
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
