// A projection process really killed (SIGKILL) after writing a batch's documents and before its
// checkpoint: the next run starts from the older checkpoint and ends equal to a clean build.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountsProjector } from '../../projections/accounts/projector.ts'
import { generationCollection } from '../../projections/generations.ts'
import { ProjectionRunner } from '../../projections/runner.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { expectAccountsEqualACleanBuild } from './support/clean-build.ts'
import { appendHistory, generateHistory } from './support/history.ts'

const dir = mkdtempSync(join(tmpdir(), 'kiln-killed-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('a projector killed between the document writes and the checkpoint is consistent after restart', async () => {
  const eventsFile = join(dir, 'events.db')
  const store = new SqliteEventStore(eventsFile)
  const head = await appendHistory(store, generateHistory({ accounts: 3, jobsPerAccount: 6, seed: 5 }))

  const child = spawnSync(
    process.execPath,
    [join(import.meta.dirname, 'support/killed-runner.ts'), eventsFile, join(dir, 'read.db')],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  )
  expect(child.signal).toBe('SIGKILL')

  const reads = new SqliteReadStore(join(dir, 'read.db'))
  const checkpoint = (await reads.getCounter('checkpoint:accounts:1'))!
  expect(checkpoint).toBeGreaterThan(0)
  const written = await reads
    .collection(generationCollection('accounts', 1))
    .find({ above: { field: 'position', value: checkpoint } })
  expect(written.length).toBeGreaterThan(0)

  const restarted = new ProjectionRunner(store, reads, accountsProjector)
  await restarted.start()
  expect(await restarted.waitForPosition(head, 10_000)).toBe(true)
  await restarted.stop()

  await expectAccountsEqualACleanBuild(store, reads)
  await Promise.all([store.close(), reads.close()])
})
