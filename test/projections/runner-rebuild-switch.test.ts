// A live runner and a rebuild: the runner reads the model's active generation only now and then
// (generationCheckMs), so batches written just after a switch may still go to the old generation.
// Whatever it wrote there, the new generation ends up complete: the runner notices the switch,
// resumes from the new generation's checkpoint and projects those events again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountsProjector } from '../../projections/accounts/projector.ts'
import { activeGeneration, readCheckpoint } from '../../projections/generations.ts'
import { projectBatch } from '../../projections/project-batch.ts'
import { rebuildModel } from '../../projections/rebuild.ts'
import { ProjectionRunner } from '../../projections/runner.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { appendHistory, generateHistory } from './support/history.ts'
import { dumpModel } from './support/read-store-contract.ts'

const dir = mkdtempSync(join(tmpdir(), 'kiln-switch-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it.each([
  ['checked at every batch', 0],
  ['checked once in a while', 300],
])('a runner follows a rebuild switch (%s)', async (label, generationCheckMs) => {
  const store = new SqliteEventStore(join(dir, `events-${generationCheckMs}.db`))
  const reads = new SqliteReadStore(join(dir, `read-${generationCheckMs}.db`))
  const history = [...generateHistory({ accounts: 4, jobsPerAccount: 8, seed: 11 })]
  const half = Math.floor(history.length / 2)
  const revisions = new Map<string, number>()
  await appendHistory(store, history.slice(0, half), revisions)

  const runner = new ProjectionRunner(store, reads, accountsProjector, { generationCheckMs })
  await runner.start()
  expect(await runner.waitForPosition(await store.headPosition(), 10_000)).toBe(true)

  const rebuilt = await rebuildModel(store, reads, accountsProjector)
  expect(rebuilt.generation).toBe(2)
  // Appended right after the switch: with a long check interval these land in generation 1 first.
  const rest = history.slice(half)
  await appendHistory(store, rest.slice(0, 5), revisions)
  await new Promise((resolve) => setTimeout(resolve, generationCheckMs + 50))
  const head = await appendHistory(store, rest.slice(5), revisions)
  expect(await runner.waitForPosition(head, 10_000)).toBe(true)
  await runner.stop()

  expect(await activeGeneration(reads, 'accounts'), label).toBe(2)
  expect(await readCheckpoint(reads, 'accounts', 2)).toBe(head)
  const clean = new SqliteReadStore(':memory:')
  await projectBatch(clean, accountsProjector, 1, await store.readAll(0, 100_000))
  expect(await dumpModel(reads, accountsProjector, 2)).toEqual(await dumpModel(clean, accountsProjector, 1))
  await Promise.all([store.close(), reads.close(), clean.close()])
})
