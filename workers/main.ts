// `npm run worker`: a standalone job worker for scale-out. It pulls jobs from NATS JetStream
// (NATS_URL) and records them in the shared event store (KURRENTDB_URL) and blob folder (DATA_DIR).
import { loadConfig } from '../app/config.ts'
import { startServices } from '../app/services.ts'

const config = loadConfig()
if (!config.natsUrl) {
  console.error(
    'npm run worker needs NATS_URL (and the shared stores); the embedded `npm start` already runs workers.',
  )
  process.exit(2)
}
const services = await startServices(config, { consumeJobs: true, project: false })
console.log(`kiln worker consuming from ${config.natsUrl} with concurrency ${config.workerConcurrency}`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await services.close()
    process.exit(0)
  })
}
