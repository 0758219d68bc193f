// Jobs: create (JSON with upload_id / url / job_file, a raw file body, or options only), list, get,
// cancel, delete.
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createJob, requireTool } from '../../app/jobs/create-job.ts'
import { cancelJob, deleteJob } from '../../app/jobs/job-actions.ts'
import { createJobFields, jobRequestFrom, maxIdempotencyKeyLength } from '../../app/jobs/job-request.ts'
import { quoteJob } from '../../app/jobs/quote-job.ts'
import type { FetchPolicy } from '../../app/jobs/stage-input.ts'
import { DomainError } from '../../domain/errors.ts'
import { jobStatuses } from '../../domain/job/events.ts'
import type { JobDoc } from '../../projections/jobs/job-doc.ts'
import { createdJob } from '../../projections/jobs/projector.ts'
import { getJob, listJobs } from '../../projections/jobs/queries.ts'
import { renderJob } from '../../projections/jobs/render.ts'
import { storedBytesOf } from '../account-storage.ts'
import { asApiJob, asApiPage } from '../job-view.ts'
import type { OwnWrites } from '../own-writes.ts'
import { jobAfterPreferredWait } from '../prefer-wait.ts'
import { takeQuote } from '../quote-limit.ts'
import { quote } from '../quote-schema.ts'
import { errors, job, jobIdParam, jobList, queryInteger } from '../schemas.ts'
import { renderOptions } from '../signed-paths.ts'

/** The routes that create jobs: they answer before projection, so they skip the own-writes wait. */
const jobCreationUrls = ['/v1/tools/:tool/jobs', '/v1/jobs'] as const
export const jobCreationPaths: ReadonlySet<string> = new Set(jobCreationUrls)

const isRawBody = (body: unknown): body is Readable => body instanceof Readable

const preferHeader = z
  .string()
  .max(200)
  .optional()
  .describe(
    'RFC 7240 preferences; `wait=N` holds the answer up to N seconds (at most 60) for the job to be final.',
  )

/** What job creation reads of a request, whichever route it came by. */
interface CreateRequest {
  body: unknown
  headers: Record<string, string | string[] | undefined>
  query: Record<string, string | undefined>
  principal: { accountId: string }
}

export const jobRoutes =
  (fetchPolicy: FetchPolicy, ownWrites: OwnWrites): FastifyPluginAsyncZod =>
  async (app) => {
    // Any non-JSON body is the input file itself: it reaches the handler as a stream, never buffered.
    app.removeContentTypeParser('text/plain')
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))

    const readJob = async (accountId: string, jobId: string, position: number) => {
      await app.services.waitForPosition(position)
      const found = await getJob(app.services.models, accountId, jobId, renderOptions(app.services))
      if (!found)
        throw new DomainError('busy', 'The job was created but cannot be read yet; get it again shortly.', {
          retryAfterSeconds: 1,
        })
      return found
    }

    /** The request read by the one request→job function (job creation and price quotes alike). */
    const withJobRequest = async <T>(
      toolId: string,
      request: CreateRequest,
      use: (
        tool: ReturnType<typeof requireTool>,
        jobRequest: ReturnType<typeof jobRequestFrom>,
      ) => Promise<T>,
    ): Promise<T> => {
      const tool = requireTool(toolId)
      const headerKey = request.headers['idempotency-key']
      try {
        const jobRequest = jobRequestFrom(
          tool,
          isRawBody(request.body)
            ? {
                kind: 'file',
                body: request.body,
                contentLength: request.headers['content-length'] as string | undefined,
                query: request.query,
                headerKey,
              }
            : { kind: 'fields', fields: request.body, headerKey },
          app.services.ctx.config,
        )
        return await use(tool, jobRequest)
      } finally {
        // A body the job never read (refused, or a replay) is drained and dropped, never stored.
        if (isRawBody(request.body) && !request.body.readableEnded) request.body.resume()
      }
    }

    const storedBytes = storedBytesOf(app.services)
    /** The storage model counts this account's last job input too (own-writes.ts). */
    const storedBytesSettled = async (accountId: string) => {
      await ownWrites.settle(app.services, accountId)
      return storedBytes(accountId)
    }

    const create = (toolId: string, request: CreateRequest) =>
      withJobRequest(toolId, request, async (tool, jobRequest) => {
        const result = await createJob(
          app.services.ctx,
          { accountId: request.principal.accountId, tool: tool.id, ...jobRequest },
          { fetchPolicy, storedBytes: storedBytesSettled },
        )
        if (!result.createdEvent)
          return {
            created: result.created,
            job: await readJob(request.principal.accountId, result.jobId, result.position),
          }
        // A new job is answered from its decided event, without waiting for the read model; the
        // account's next read waits for it instead (own-writes.ts).
        ownWrites.noteWrite(request.principal.accountId, result.position)
        const doc: JobDoc = {
          id: result.jobId,
          position: result.position,
          ...createdJob(result.createdEvent, result.position),
        }
        return { created: true, job: renderJob(doc, renderOptions(app.services)) }
      })

    /** 202 for a new job, 200 for a replay; held first when the client asked with `Prefer: wait`. */
    const answerCreated = async (
      request: FastifyRequest,
      reply: FastifyReply,
      { created, job: resource }: Awaited<ReturnType<typeof create>>,
    ) => {
      const held = await jobAfterPreferredWait(
        app.services,
        request,
        reply,
        request.principal.accountId,
        resource,
      )
      return reply.status(created ? 202 : 200).send(asApiJob(held))
    }

    const createSchema = {
      tags: ['jobs'],
      headers: z.looseObject({
        'idempotency-key': z.string().max(maxIdempotencyKeyLength).optional(),
        prefer: preferHeader,
      }),
      // With a raw file body: the file's name and the tool's options, each a single string value.
      querystring: z.object({ filename: z.string().min(1).max(255).optional() }).catchall(z.string()),
      body: createJobFields,
      response: {
        200: job,
        202: job,
        ...errors(400, 401, 402, 403, 404, 409, 410, 411, 413, 415, 422, 429, 503),
      },
    }
    // The body and key schemas document the request; jobRequestFrom judges it, so REST and MCP
    // answer the same mistake alike. Prefer, which only REST has, is judged here.
    const bodyOrStream = ((routeSchema: Parameters<typeof validatorCompiler>[0]) => {
      const validate = validatorCompiler(routeSchema)
      if (routeSchema.httpPart === 'body') return (data: unknown) => ({ value: data })
      if (routeSchema.httpPart !== 'headers') return validate
      const validatePrefer = validatorCompiler({
        ...routeSchema,
        schema: z.looseObject({ prefer: preferHeader }),
      })
      return (data: { prefer?: unknown }) =>
        data.prefer === undefined ? { value: data } : validatePrefer(data)
    }) as typeof validatorCompiler

    // A job read is the hottest route: its headers are checked (and copied) by zod only when they
    // carry the one header the schema is about.
    const headersOnlyWithPrefer = ((routeSchema: Parameters<typeof validatorCompiler>[0]) => {
      const validate = validatorCompiler(routeSchema)
      return routeSchema.httpPart === 'headers'
        ? (data: { prefer?: unknown }) => (data.prefer === undefined ? { value: data } : validate(data))
        : validate
    }) as typeof validatorCompiler

    app.post(
      jobCreationUrls[0],
      {
        schema: {
          ...createSchema,
          summary: 'Start a job of a tool',
          params: z.object({ tool: z.string().max(64) }),
        },
        validatorCompiler: bodyOrStream as never,
      },
      async (request, reply) => answerCreated(request, reply, await create(request.params.tool, request)),
    )
    app.post(
      jobCreationUrls[1],
      {
        schema: { ...createSchema, summary: 'Start a split_3d_model job' },
        validatorCompiler: bodyOrStream as never,
      },
      async (request, reply) => answerCreated(request, reply, await create('split_3d_model', request)),
    )

    app.post(
      '/v1/tools/:tool/quote',
      {
        schema: {
          ...createSchema,
          summary: 'Quote the price of a job without running it',
          description:
            'Takes the same three input forms as starting a job. Measures the input (faces, pages) without running the tool, charging, or counting against quotas, and answers the credits the job would cost, the balance, and whether it would be admitted now (with the error code it would get). Quotes have their own rate limit.',
          params: z.object({ tool: z.string().max(64) }),
          response: {
            200: quote,
            ...errors(400, 401, 402, 403, 404, 409, 410, 411, 413, 415, 422, 429, 503),
          },
        },
        validatorCompiler: bodyOrStream as never,
        onRequest: async (request) => takeQuote(app.services, request.principal.credentialId),
      },
      async (request) =>
        withJobRequest(request.params.tool, request, (tool, { options, input }) =>
          quoteJob(
            app.services.ctx,
            app.services.measureInput,
            { accountId: request.principal.accountId, tool: tool.id, options, input },
            fetchPolicy,
          ),
        ),
    )

    app.get(
      '/v1/jobs',
      {
        schema: {
          tags: ['jobs'],
          summary: 'List jobs, newest first',
          querystring: z.object({
            limit: queryInteger(1, 100, 20),
            before: queryInteger(0, Number.MAX_SAFE_INTEGER).optional(),
            tool: z.string().max(64).optional(),
            status: z.enum(jobStatuses).optional(),
          }),
          response: { 200: jobList, ...errors(400, 401, 403, 429) },
        },
      },
      async (request) => {
        const { limit, before, tool, status } = request.query
        return asApiPage(
          await listJobs(
            app.services.models,
            request.principal.accountId,
            { limit, before: before ?? null, tool: tool ?? null, status: status ?? null },
            renderOptions(app.services),
          ),
        )
      },
    )

    app.get(
      '/v1/jobs/:id',
      {
        schema: {
          tags: ['jobs'],
          summary: 'Get a job, with fresh download URLs',
          description:
            'With `Prefer: wait=N` (N up to 60) the answer waits until the job is final or N seconds pass, and says `Preference-Applied: wait=N`.',
          params: jobIdParam,
          headers: z.looseObject({ prefer: preferHeader }),
          response: { 200: job, ...errors(400, 401, 403, 404, 429) },
        },
        validatorCompiler: headersOnlyWithPrefer as never,
      },
      async (request, reply) => {
        const { accountId } = request.principal
        const { id } = request.params
        const render = renderOptions(app.services)
        let found = await getJob(app.services.models, accountId, id, render)
        // Created a moment ago through another process: the models may not have it yet.
        if (!found && (await app.services.waitForPosition(await app.services.ctx.store.headPosition(), 1000)))
          found = await getJob(app.services.models, accountId, id, render)
        if (!found) throw new DomainError('not_found', 'No such job.')
        return asApiJob(
          await jobAfterPreferredWait(app.services, request, reply, request.principal.accountId, found),
        )
      },
    )

    // Cancel and delete answer alike: the job's id and what became of it, once the read model shows it.
    const actionSchema = (summary: string) => ({
      tags: ['jobs'],
      summary,
      params: jobIdParam,
      response: {
        200: z.object({ id: z.string(), status: z.enum(['canceled', 'deleted']) }),
        ...errors(400, 401, 403, 404, 409, 429),
      },
    })
    const jobAction =
      (act: typeof cancelJob) =>
      async (request: { params: { id: string }; principal: { accountId: string } }) => {
        const result = await act(app.services.ctx, request.principal.accountId, request.params.id)
        await app.services.waitForPosition(result.position)
        return { id: result.id, status: result.status }
      }
    app.post(
      '/v1/jobs/:id/cancel',
      { schema: actionSchema('Cancel a queued job (safe to retry)') },
      jobAction(cancelJob),
    )
    app.delete(
      '/v1/jobs/:id',
      { schema: actionSchema('Cancel a queued job, or delete a finished job and its files') },
      jobAction(deleteJob),
    )
  }
