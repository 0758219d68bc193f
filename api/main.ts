// `npm start`: the whole service on one machine (embedded default), or the API of a scaled-out
// deployment when KURRENTDB_URL / MONGODB_URL / NATS_URL are set.
import { loadConfig } from '../app/config.ts'
import { startServices } from '../app/services.ts'
import { buildApp } from './app.ts'
import { bootstrapOwner } from './bootstrap-owner.ts'
import { registerConsole } from './console/plugin.ts'
import { registerMcp } from './mcp/plugin.ts'

const config = loadConfig()
const services = await startServices(config, { consumeJobs: process.env.RUN_WORKERS !== 'false' })
const app = await buildApp({
  services,
  logger: process.env.LOG_LEVEL !== 'silent',
  plugins: [registerConsole, (instance) => registerMcp(instance, services, { waitMs: config.mcpWaitMs })],
})

const owner = await bootstrapOwner(services)
await app.listen({ port: config.port, host: config.host })
console.log(`kiln listening on ${config.publicUrl} (data in ${config.dataDir})`)
if (owner) {
  console.log(`
First start: created the owner account ${owner.accountId} with 1000 credits.
  API key (shown once):       ${owner.apiKey}
  Console token (shown once): ${owner.consoleToken}
Try:
  curl -H "Authorization: Bearer ${owner.apiKey}" ${config.publicUrl}/v1/tools
`)
}

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    await app?.close()
    await services.close()
    process.exit(0)
  })
}
