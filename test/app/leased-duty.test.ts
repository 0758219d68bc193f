// The lease's fence: a duty writes only while its last claim has a third of its life left, and not
// at all once a renewal finds the lease taken, even in the stop that follows.
import { afterEach, expect, it } from 'vitest'
import { LeasedDuty, type LeaseFence } from '../../app/leased-duty.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'

const ttlMs = 300
const stores: SqliteReadStore[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

function readStore(): SqliteReadStore {
  const store = new SqliteReadStore(':memory:')
  stores.push(store)
  return store
}

/** A duty whose stop records whether its fence still held then. */
function recordingDuty(reads: SqliteReadStore, holder: string, now: () => number) {
  const seen: { fence?: LeaseFence; heldAtStop?: boolean } = {}
  const duty = new LeasedDuty(
    reads,
    'projector',
    holder,
    async (fence) => {
      seen.fence = fence
      return {
        async stop() {
          seen.heldAtStop = fence.holds()
        },
      }
    },
    { ttlMs, now },
  )
  return { duty, seen }
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((r) => setTimeout(r, 20))
  expect(condition()).toBe(true)
}

it('holds for the first two thirds of a claim and fails after, before the lease expires', async () => {
  let clock = 1_000_000
  const { duty, seen } = recordingDuty(readStore(), 'a', () => clock)
  await duty.start()
  expect(duty.held).toBe(true)
  expect(seen.fence!.holds()).toBe(true)
  clock += (ttlMs * 2) / 3 - 1
  expect(seen.fence!.holds()).toBe(true)
  clock += 2
  expect(seen.fence!.holds()).toBe(false)
  await duty.stop()
})

it('fails at once when a renewal finds the lease taken, and the stop that follows writes nothing', async () => {
  const reads = readStore()
  const clock = 1_000_000
  const a = recordingDuty(reads, 'a', () => clock)
  await a.duty.start()
  // Another process whose clock runs a lease ahead finds the lease expired and takes it, while by
  // a's clock its claim still has most of its life.
  const b = recordingDuty(reads, 'b', () => clock + ttlMs + 1)
  await b.duty.start()
  expect(b.duty.held).toBe(true)
  expect(a.seen.fence!.holds()).toBe(true)
  await until(() => !a.duty.held)
  expect(a.seen.fence!.holds()).toBe(false)
  expect(a.seen.heldAtStop).toBe(false)
  await b.duty.stop()
  await a.duty.stop()
})

it('a stop of the duty while the lease is still ours lets the duty write its last batch', async () => {
  const { duty, seen } = recordingDuty(readStore(), 'a', () => 1_000_000)
  await duty.start()
  await duty.stop()
  expect(seen.heldAtStop).toBe(true)
  expect(duty.held).toBe(false)
})
