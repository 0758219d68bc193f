import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { eventStoreContract } from './contract.ts'

eventStoreContract(
  'SQLite (embedded)',
  async () => new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'kiln-es-')), 'events.db')),
)

// Commits on the calling thread (the path of :memory: stores) must keep the same contract.
eventStoreContract(
  'SQLite (embedded, commits on the event loop)',
  async () =>
    new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'kiln-es-')), 'events.db'), { writerThread: false }),
)
