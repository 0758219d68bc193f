// The peer of the REST bench: Fastify with the same paths, answering the same JSON a real job read
// or creation answers and the account kiln's /v1/me answers, with nothing behind it.
// `node bench/api/bare-server.ts <job.json> <me.json>`; prints its port.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const job = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, unknown>
const me = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as Record<string, unknown>
const app = Fastify()
app.get('/v1/me', async () => me)
app.get('/v1/jobs/:id', async () => job)
app.post('/v1/tools/:tool/jobs', async (_request, reply) => reply.status(202).send(job))
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
console.log(typeof address === 'object' && address ? address.port : '')
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
