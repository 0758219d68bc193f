// npm run audit [-- --json] [-- --no-read-models]
// Audits the credit ledger of every account in the event store and compares the Me and Billing
// read models with a replay. Exits 1 on any violation. Stores: the server's, from the same configuration (app/stores.ts).

import { loadConfig } from '../app/config.ts'
import { openEventStore, openReadStore } from '../app/stores.ts'
import { audit, formatReport } from './audit.ts'

const json = process.argv.includes('--json')
const withReadModels = !process.argv.includes('--no-read-models')
const config = loadConfig()
const store = await openEventStore(config)
const reads = withReadModels ? await openReadStore(config) : undefined
try {
  const result = await audit(store, reads ? { reads } : {})
  console.log(json ? JSON.stringify(result, null, 2) : formatReport(result))
  process.exitCode = result.ok ? 0 : 1
} finally {
  await store.close()
  await reads?.close()
}
