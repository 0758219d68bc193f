// A runner whose lease's fence fails writes nothing (documents or checkpoint) and holds its batch
// until the fence holds again; its stop under a failed fence drops the batch for the next holder,
// who replays it from the checkpoint.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountsProjector } from '../../projections/accounts/projector.ts'
import { checkpointKey } from '../../projections/generations.ts'
import { ProjectionRunner } from '../../projections/runner.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { expectAccountsEqualACleanBuild } from './support/clean-build.ts'
import { appendHistory, generateHistory } from './support/history.ts'
import { dumpModel } from './support/read-store-contract.ts'

const dir = mkdtempSync(join(tmpdir(), 'kiln-fenced-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it('writes nothing while the fence fails, then writes the held batch once it holds', async () => {
  const store = new SqliteEventStore(join(dir, 'events-a.db'))
  const reads = new SqliteReadStore(join(dir, 'read-a.db'))
  const head = await appendHistory(store, generateHistory({ accounts: 2, jobsPerAccount: 5, seed: 11 }))
  let holds = false
  let asked = 0
  const errors: unknown[] = []
  const runner = new ProjectionRunner(store, reads, accountsProjector, {
    retryDelayMs: 20,
    onError: (error) => errors.push(error),
    mayWrite: () => {
      asked++
      return holds
    },
  })
  await runner.start()
  expect(await runner.waitForPosition(head, 300)).toBe(false)
  expect(asked).toBeGreaterThan(1)
  expect(await reads.getCounter(checkpointKey('accounts', 1))).toBeNull()
  expect(Object.values(await dumpModel(reads, accountsProjector, 1)).flat()).toEqual([])
  // A fenced batch is not an error: nothing was logged.
  expect(errors).toEqual([])

  holds = true
  expect(await runner.waitForPosition(head, 10_000)).toBe(true)
  await runner.stop()
  await expectAccountsEqualACleanBuild(store, reads)
  await Promise.all([store.close(), reads.close()])
})

it('a stop under a failed fence writes nothing more; the next holder replays from the checkpoint', async () => {
  const store = new SqliteEventStore(join(dir, 'events-b.db'))
  const reads = new SqliteReadStore(join(dir, 'read-b.db'))
  const history = [...generateHistory({ accounts: 2, jobsPerAccount: 6, seed: 12 })]
  const half = Math.floor(history.length / 2)
  const revisions = new Map<string, number>()
  const first = await appendHistory(store, history.slice(0, half), revisions)
  let holds = true
  const runner = new ProjectionRunner(store, reads, accountsProjector, { mayWrite: () => holds })
  await runner.start()
  expect(await runner.waitForPosition(first, 10_000)).toBe(true)
  const checkpoint = await reads.getCounter(checkpointKey('accounts', 1))
  expect(checkpoint).toBe(first)

  // The lease is taken: the fence fails, then more events arrive and the runner is stopped.
  holds = false
  const head = await appendHistory(store, history.slice(half), revisions)
  expect(head).toBeGreaterThan(first)
  await pause(50)
  await runner.stop()
  expect(await reads.getCounter(checkpointKey('accounts', 1))).toBe(checkpoint)
  expect(runner.position).toBe(first)

  const next = new ProjectionRunner(store, reads, accountsProjector)
  await next.start()
  expect(await next.waitForPosition(head, 10_000)).toBe(true)
  await next.stop()
  await expectAccountsEqualACleanBuild(store, reads)
  await Promise.all([store.close(), reads.close()])
})
