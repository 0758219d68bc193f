// Jobs: create (JSON with upload_id / url / job_file, a raw file body, or options only), list, get,
// cancel, delete.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createJob, requireTool } from '../../app/jobs/create-job.ts'
import { cancelJob, deleteJob } from '../../app/jobs/job-actions.ts'
import { coerceQueryOptions } from '../../app/jobs/options.ts'
import { quoteJob } from '../../app/jobs/quote-job.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import { getJob, listJobs } from '../../projections/jobs/queries.ts'
import { type FetchPolicy, isRawBody, type StagedInput, stageRawBody, stageUrl } from '../job-input.ts'
import { asApiJob, asApiPage } from '../job-view.ts'
import { jobAfterPreferredWait } from '../prefer-wait.ts'
import { takeQuote } from '../quote-limit.ts'
import { quote } from '../quote-schema.ts'
import { createJobBody, errors, job, jobIdParam, jobList } from '../schemas.ts'
import { renderOptions } from '../signed-paths.ts'
import { optionsJsonSchema } from '../tool-view.ts'

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
  (fetchPolicy: FetchPolicy): FastifyPluginAsyncZod =>
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

    /**
     * Reads the three request forms into a staged input, options and idempotency key, hands them to
     * `use` (creating the job, or quoting it), and removes the staging blobs afterwards.
     */
    const withJobRequest = async <T>(
      toolId: string,
      request: CreateRequest,
      use: (parsed: {
        tool: ToolDefinition
        input: StagedInput['input']
        options: unknown
        idempotencyKey: string | null
      }) => Promise<T>,
    ): Promise<T> => {
      const tool = requireTool(toolId)
      const headerKey = request.headers['idempotency-key']
      if (Array.isArray(headerKey))
        throw new DomainError('invalid_request', 'Send one Idempotency-Key header.')
      let staged: StagedInput = { input: { kind: 'none' }, stagingPrefix: null }
      let options: unknown = {}
      let idempotencyKey = headerKey ?? null
      try {
        if (isRawBody(request.body)) {
          if (tool.input.kind === 'parameters')
            throw new DomainError('invalid_request', `${tool.id} takes only options as JSON, no file body.`)
          const { filename, idempotency_key: queryKey, ...rest } = request.query
          if (queryKey !== undefined)
            throw new DomainError(
              'invalid_request',
              'Send the idempotency key as the Idempotency-Key header with a file body.',
            )
          options = coerceQueryOptions(rest, optionsJsonSchema(tool))
          staged = await stageRawBody(
            app.services,
            tool,
            request.body,
            request.headers['content-length'] as string | undefined,
            filename,
          )
        } else {
          const parsed = createJobBody.safeParse(request.body ?? {})
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!
            const what =
              issue.code === 'unrecognized_keys'
                ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
                : `${issue.path.join('.') || 'body'}: ${issue.message}`
            throw new DomainError('invalid_request', `Invalid job request: ${what}.`)
          }
          const body = parsed.data
          if (body.idempotency_key !== undefined) {
            if (idempotencyKey !== null && idempotencyKey !== body.idempotency_key)
              throw new DomainError(
                'invalid_request',
                'The Idempotency-Key header and idempotency_key differ.',
              )
            idempotencyKey = body.idempotency_key
          }
          options = body.options ?? {}
          const sources = [body.upload_id, body.url, body.job_file].filter((s) => s !== undefined).length
          if (sources > 1)
            throw new DomainError('invalid_request', 'Give exactly one of upload_id, url or job_file.')
          if (body.upload_id) staged.input = { kind: 'upload', uploadId: body.upload_id }
          else if (body.job_file)
            staged.input = { kind: 'job_file', jobId: body.job_file.job_id, name: body.job_file.name }
          else if (body.url) {
            if (tool.input.kind === 'parameters')
              throw new DomainError('invalid_request', `${tool.id} takes only options, no file.`)
            staged = await stageUrl(app.services, tool, body.url, body.filename, fetchPolicy)
          }
        }
        if (idempotencyKey !== null && (idempotencyKey.length === 0 || idempotencyKey.length > 100)) {
          throw new DomainError('invalid_request', 'An idempotency key has 1 to 100 characters.')
        }
        return await use({ tool, input: staged.input, options, idempotencyKey })
      } finally {
        if (staged.stagingPrefix) await app.services.ctx.blobs.deletePrefix(staged.stagingPrefix)
        if (request.body instanceof Readable && !request.body.readableEnded) request.body.resume()
      }
    }

    const create = (toolId: string, request: CreateRequest) =>
      withJobRequest(toolId, request, async ({ tool, input, options, idempotencyKey }) => {
        const result = await createJob(app.services.ctx, {
          accountId: request.principal.accountId,
          tool: tool.id,
          options,
          input,
          idempotencyKey,
        })
        return {
          created: result.created,
          job: await readJob(request.principal.accountId, result.jobId, result.position),
        }
      })

    const createSchema = {
      tags: ['jobs'],
      headers: z.looseObject({ 'idempotency-key': z.string().max(100).optional(), prefer: preferHeader }),
      // With a raw file body: the file's name and the tool's options, each a single string value.
      querystring: z.object({ filename: z.string().min(1).max(255).optional() }).catchall(z.string()),
      body: createJobBody,
      response: {
        200: job,
        202: job,
        ...errors(400, 401, 402, 403, 404, 409, 410, 411, 413, 415, 422, 429, 503),
      },
    }
    // The body schema documents the JSON form; a raw file body passes through untouched.
    const bodyOrStream = ((routeSchema: Parameters<typeof validatorCompiler>[0]) => {
      const validate = validatorCompiler(routeSchema)
      return routeSchema.httpPart === 'body'
        ? (data: unknown) => (isRawBody(data) ? { value: data } : validate(data))
        : validate
    }) as typeof validatorCompiler

    app.post(
      '/v1/tools/:tool/jobs',
      {
        schema: {
          ...createSchema,
          summary: 'Start a job of a tool',
          params: z.object({ tool: z.string().max(64) }),
        },
        validatorCompiler: bodyOrStream as never,
      },
      async (request, reply) => {
        const { created, job: resource } = await create(request.params.tool, request)
        const held = await jobAfterPreferredWait(
          app.services,
          request,
          reply,
          request.principal.accountId,
          resource,
        )
        return reply.status(created ? 202 : 200).send(asApiJob(held))
      },
    )
    app.post(
      '/v1/jobs',
      {
        schema: { ...createSchema, summary: 'Start a split_3d_model job' },
        validatorCompiler: bodyOrStream as never,
      },
      async (request, reply) => {
        const { created, job: resource } = await create('split_3d_model', request)
        const held = await jobAfterPreferredWait(
          app.services,
          request,
          reply,
          request.principal.accountId,
          resource,
        )
        return reply.status(created ? 202 : 200).send(asApiJob(held))
      },
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
        withJobRequest(request.params.tool, request, ({ tool, input, options }) =>
          quoteJob(app.services.ctx, app.services.measureInput, {
            accountId: request.principal.accountId,
            tool: tool.id,
            options,
            input,
          }),
        ),
    )

    app.get(
      '/v1/jobs',
      {
        schema: {
          tags: ['jobs'],
          summary: 'List jobs, newest first',
          querystring: z.object({
            limit: z.coerce.number().int().min(1).max(100).default(20),
            before: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
            tool: z.string().max(64).optional(),
            status: z.enum(['queued', 'running', 'succeeded', 'failed', 'canceled', 'expired']).optional(),
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
      },
      async (request, reply) => {
        const found = await getJob(
          app.services.models,
          request.principal.accountId,
          request.params.id,
          renderOptions(app.services),
        )
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
