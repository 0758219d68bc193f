// What operators and load balancers ask an instance: /ready (can it serve now: stores answer, read
// models near the head), /metrics (Prometheus text), and a Request-Id on every response, the id its
// log lines carry. /health stays the plain liveness answer.
import type { FastifyInstance } from 'fastify'
import type { HistogramSeries } from '../../app/labelled-histogram.ts'
import { pooledRandom } from '../../app/security/pooled-random.ts'
import type { Services } from '../../app/services.ts'

/** A caller's own Request-Id is kept when it is short and plain; otherwise the instance makes one. */
const acceptableRequestId = /^[A-Za-z0-9._:-]{1,64}$/

const idBytes = 12
const idRandom = pooledRandom(idBytes * 512)

const newRequestId = () => `req_${idRandom(idBytes).toString('base64url')}`

export function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['request-id']
  return typeof given === 'string' && acceptableRequestId.test(given) ? given : newRequestId()
}

export async function registerOps(app: FastifyInstance, services: Services): Promise<void> {
  const { metrics, config } = services.ctx

  // Callback-style hooks, as they run on every request (see api/console/plugin.ts).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('request-id', request.id)
    done(null, payload)
  })
  // One labelled child per method, route template and status, looked up rather than made per
  // request. The route template, never the raw path: ids in paths would make a series per job.
  const durations = new Map<string, HistogramSeries>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const key = `${request.method} ${reply.statusCode} ${route}`
    let series = durations.get(key)
    if (!series) {
      series = metrics.httpDuration.series({
        method: request.method,
        route,
        status: String(reply.statusCode),
      })
      durations.set(key, series)
    }
    series.observe(reply.elapsedTime / 1000)
    done()
  })

  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    const readiness = await services.readiness()
    return reply.status(readiness.ready ? 200 : 503).send(readiness)
  })

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (config.metricsToken && request.headers.authorization !== `Bearer ${config.metricsToken}`)
      return reply
        .status(401)
        .send({ error: { code: 'unauthorized', message: 'Send Authorization: Bearer <METRICS_TOKEN>.' } })
    await services.refreshGauges()
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })
}
