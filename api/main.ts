// `npm start`: the whole service on one machine (embedded default), or one process of a scaled-out
// deployment (KURRENTDB_URL / MONGODB_URL / NATS_URL / BLOBS_URL) doing the roles ROLES names. Without
// the api role it serves no HTTP and runs its duties (jobs, projections, housekeeping).
import { loadConfigOrExit } from '../app/config.ts'
import { log } from '../app/log.ts'
import { startServices } from '../app/services.ts'
import { buildApp } from './app.ts'
import { bootstrapOwner } from './bootstrap-owner.ts'
import { registerConsole } from './console/plugin.ts'
import { registerMcp } from './mcp/plugin.ts'
import { registerOAuth } from './oauth/plugin.ts'

const config = loadConfigOrExit(log)
const services = await startServices(config)
const app = config.roles.includes('api')
  ? await buildApp({
      services,
      logger: log,
      plugins: [
        registerConsole,
        registerOAuth(),
        (instance) => registerMcp(instance, services, { waitMs: config.mcpWaitMs }),
      ],
    })
  : null

if (app) {
  const owner = await bootstrapOwner(services)
  await app.listen({ port: config.port, host: config.host })
  log.info({ url: config.publicUrl, dataDir: config.dataDir, roles: config.roles }, 'kiln listening')
  if (owner)
    log.warn(
      {
        accountId: owner.accountId,
        apiKey: owner.apiKey,
        consoleToken: owner.consoleToken,
        try: `curl -H "Authorization: Bearer ${owner.apiKey}" ${config.publicUrl}/v1/tools`,
      },
      'first start: created the owner account with 1000 credits; its API key and console token are shown this once and never logged again',
    )
} else {
  log.info({ dataDir: config.dataDir, roles: config.roles }, 'kiln running without HTTP (no api role)')
  // Duties run on timers and subscriptions; this keeps the process up until a signal ends it.
  setInterval(() => {}, 2 ** 30)
}

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'draining: no new requests or jobs; running jobs finish')
    await app?.close()
    await services.close()
    process.exit(0)
  })
}
