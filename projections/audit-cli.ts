// npm run audit [-- --json] [-- --no-read-models]
// Audits the credit ledger of every account in the event store and compares the Me and Billing
// read models with a replay. Exits 1 on any violation. Stores: see config.ts.
import { audit, formatReport } from './audit.ts'
import { eventStoreFromEnv, readStoreFromEnv } from './config.ts'

const json = process.argv.includes('--json')
const withReadModels = !process.argv.includes('--no-read-models')
const store = eventStoreFromEnv()
const reads = withReadModels ? await readStoreFromEnv() : undefined
try {
  const result = await audit(store, reads ? { reads } : {})
  console.log(json ? JSON.stringify(result, null, 2) : formatReport(result))
  process.exitCode = result.ok ? 0 : 1
} finally {
  await store.close()
  await reads?.close()
}
