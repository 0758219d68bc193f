import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { eventStoreContract } from './contract.ts'

eventStoreContract(
  'SQLite (embedded)',
  async () => new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'kiln-es-')), 'events.db')),
)
