// `npm run worker`: a standalone job worker for scale-out. It pulls jobs from NATS JetStream
// (NATS_URL) and records them in the shared stores (KURRENTDB_URL or the shared SQLite folder,
// MONGODB_URL, BLOBS_URL). SIGTERM drains it: no new jobs, running ones finish, then it exits.
import { loadConfigOrExit } from '../app/config.ts'
import { log } from '../app/log.ts'
import { startServices } from '../app/services.ts'

const config = loadConfigOrExit(log)
if (!config.natsUrl) {
  log.error(
    'npm run worker needs NATS_URL (and the shared stores); the embedded `npm start` already runs workers',
  )
  process.exit(2)
}
const services = await startServices(config, { consumeJobs: true, project: false })
log.info({ nats: config.natsUrl, concurrency: config.workerConcurrency }, 'kiln worker consuming')
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'draining: no new jobs; running jobs finish')
    await services.close()
    process.exit(0)
  })
}
