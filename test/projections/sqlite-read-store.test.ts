import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { readStoreContract } from './support/read-store-contract.ts'

readStoreContract('SQLite', async () => {
  const reads = new SqliteReadStore(':memory:')
  return { reads, close: () => reads.close() }
})
