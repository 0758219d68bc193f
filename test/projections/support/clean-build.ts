// The accounts model a runner left in `reads` must equal one built in one batch from every event.
import { expect } from 'vitest'
import type { EventStore } from '../../../domain/ports/event-store.ts'
import { accountsProjector } from '../../../projections/accounts/projector.ts'
import { projectBatch } from '../../../projections/project-batch.ts'
import type { ReadStore } from '../../../projections/read-store.ts'
import { SqliteReadStore } from '../../../projections/sqlite-read-store.ts'
import { dumpModel } from './read-store-contract.ts'

export async function expectAccountsEqualACleanBuild(store: EventStore, reads: ReadStore): Promise<void> {
  const clean = new SqliteReadStore(':memory:')
  try {
    await projectBatch(clean, accountsProjector, 1, await store.readAll(0, 100_000))
    expect(await dumpModel(reads, accountsProjector, 1)).toEqual(await dumpModel(clean, accountsProjector, 1))
  } finally {
    await clean.close()
  }
}
