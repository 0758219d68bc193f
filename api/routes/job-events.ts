// GET /v1/jobs/{id}/events: the job's status as Server-Sent Events. Each change of the job is one
// event whose id is the revision of the job-stream event it comes from, so a client that reconnects
// with Last-Event-ID gets exactly what came after. Once the job is final the stream sends the job
// itself (`event: job`) and closes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { holdForJob } from '../../app/jobs/job-events.ts'
import { DomainError } from '../../domain/errors.ts'
import { finalStatuses, jobStream } from '../../domain/job/events.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import { getJob } from '../../projections/jobs/queries.ts'
import { asApiJob } from '../job-view.ts'
import { errors, jobIdParam } from '../schemas.ts'
import { renderOptions } from '../signed-paths.ts'

const statusOf: Record<string, string> = {
  JobCreated: 'queued',
  JobStarted: 'running',
  JobProgressed: 'running',
  JobMeasured: 'running',
  JobSucceeded: 'succeeded',
  JobFailed: 'failed',
  JobCanceled: 'canceled',
  JobExpired: 'expired',
  JobDeleted: 'deleted',
}
const finalTypes = new Set(['JobSucceeded', 'JobFailed', 'JobCanceled', 'JobExpired', 'JobDeleted'])
const keepAliveMs = 15_000
/** How long the stream waits for a finished job's account to be settled before telling it anyway. */
const settleWaitMs = 10_000

/** One event of the stream, as OpenAPI 3.2 and SSE-aware tools describe an event-stream item. */
const sseEvent = z
  .object({
    id: z.string().optional().describe("The change's revision: send it back as Last-Event-ID."),
    event: z.enum(['status', 'job']),
    data: z.string().describe('JSON: `{status, at, …}` for status, the Job for job.'),
  })
  .meta({ id: 'JobStreamEvent' })

/** What one job event tells a client: the status, and the detail that event adds. */
function statusData(event: RecordedEvent): Record<string, unknown> {
  const data = event.data as Record<string, unknown>
  const base: Record<string, unknown> = { status: statusOf[event.type], at: data.at }
  if (event.type === 'JobProgressed') base.progress = { fraction: data.fraction, message: data.message }
  if (event.type === 'JobMeasured') Object.assign(base, { units: data.units, credits: data.credits })
  if (event.type === 'JobFailed') base.error = data.error
  return base
}

const lastEventIdHeader = z
  .string()
  .regex(/^\d{1,9}$/)
  .optional()
  .describe('The id of the last event received: the stream resumes after it.')

export const jobEventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        tags: ['jobs'],
        summary: "Follow a job's status as Server-Sent Events",
        description:
          "A `text/event-stream`: `event: status` for each change (id = the change's sequence number; data `{status, at, progress?, units?, credits?, error?}`), then `event: job` with the final Job, then the stream ends. Reconnect with `Last-Event-ID` to resume without missing a change.",
        params: jobIdParam,
        headers: z.looseObject({ 'last-event-id': lastEventIdHeader }),
        response: {
          200: {
            description: 'The event stream, closed once the job is final.',
            content: { 'text/event-stream': { schema: sseEvent } },
          },
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { services } = app
      const accountId = request.principal.accountId
      const jobId = request.params.id
      const readJob = () => getJob(services.models, accountId, jobId, renderOptions(services))
      if (!(await readJob())) throw new DomainError('not_found', 'No such job.')
      const after =
        request.headers['last-event-id'] === undefined ? -1 : Number(request.headers['last-event-id'])

      // Listen before reading the history, so nothing falls between the two.
      const live: RecordedEvent[] = []
      let wake = () => {}
      const detach = services.jobEvents.listen(jobId, (event) => {
        live.push(event)
        wake()
      })
      reply.hijack()
      const out = reply.raw
      out.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      })
      let closed = false
      out.once('close', () => {
        closed = true
        wake()
      })
      const keepAlive = setInterval(() => out.write(': keep-alive\n\n'), keepAliveMs)
      let sent = after
      /** Sends the event unless the client has it. */
      const send = (event: RecordedEvent) => {
        if (event.revision > sent && event.type in statusOf) {
          sent = event.revision
          out.write(`id: ${event.revision}\nevent: status\ndata: ${JSON.stringify(statusData(event))}\n\n`)
        }
      }
      try {
        let final: RecordedEvent | null = null
        // The whole history, so a client that already had the final change still learns the job is over.
        for (const event of await services.ctx.store.readStream(jobStream(jobId))) {
          if (finalTypes.has(event.type)) {
            final = event
            break
          }
          send(event)
        }
        while (!final && !closed) {
          if (live.length === 0) await new Promise<void>((resolve) => (wake = resolve))
          for (const event of live.splice(0)) {
            if (finalTypes.has(event.type)) {
              final = event
              break
            }
            send(event)
          }
        }
        if (final && !closed) {
          // The final change is told once the job reads final, which is once its account has settled
          // it (projections/jobs/projector.ts): a client reading Billing then sees any refund.
          const job = await holdForJob(services.jobEvents, jobId, {
            read: readJob,
            done: (read) => read === null || finalStatuses.has(read.status),
            waitMs: settleWaitMs,
          })
          send(final)
          if (job) out.write(`event: job\ndata: ${JSON.stringify(asApiJob(job))}\n\n`)
        }
      } finally {
        clearInterval(keepAlive)
        detach()
        out.end()
      }
    },
  )
}
