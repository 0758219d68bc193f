// The peer of the REST bench: Fastify with the same paths, answering the same JSON a real job read
// or creation answers and the account kiln's /v1/me answers. Reads have nothing behind them. A
// creation commits what kiln's records at the least, durably: an admission event on the account's
// stream and a creation event on a new job stream, in a SQLite file with synchronous=FULL, group
// committed on a thread of its own (bare-writer.ts), before it answers. So the creation row says
// what durable creation costs on the machine with nothing else to do.
// `node bench/api/bare-server.ts <job.json> <me.json> <data-dir>`; prints its port.
import { hash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import Fastify from 'fastify'

const job = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, unknown>
const me = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as Record<string, unknown>
const writer = new Worker(new URL('./bare-writer.ts', import.meta.url), {
  workerData: { path: join(process.argv[4]!, 'bare-events.db') },
})
const committed = new Map<number, () => void>()
writer.on('message', (ids: number[]) => {
  for (const id of ids) {
    committed.get(id)?.()
    committed.delete(id)
  }
})
let nextCommit = 0
const revisions = new Map<string, number>()

function createJob(account: string, options: unknown): Promise<Record<string, unknown>> {
  const id = `j_${randomBytes(13).toString('hex')}`
  const revision = (revisions.get(account) ?? -1) + 1
  revisions.set(account, revision)
  const at = new Date().toISOString()
  const data = JSON.stringify({ ...job, id, options, created_at: at })
  const rows = [
    {
      stream: `account-${account}`,
      revision,
      id: hash('sha256', `${id}:admitted`),
      type: 'JobAdmitted',
      data,
    },
    { stream: `job-${id}`, revision: 0, id: hash('sha256', `${id}:created`), type: 'JobCreated', data },
  ]
  const commit = nextCommit++
  return new Promise((resolve) => {
    committed.set(commit, () => resolve({ ...job, id, options, created_at: at }))
    writer.postMessage({ id: commit, at, rows })
  })
}

const app = Fastify()
app.get('/v1/me', async () => me)
app.get('/v1/jobs/:id', async () => job)
app.post('/v1/tools/:tool/jobs', async (request, reply) =>
  reply.status(202).send(await createJob(request.headers.authorization ?? '', request.body ?? {})),
)
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
console.log(typeof address === 'object' && address ? address.port : '')
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
