// The tools that let an agent finish a job's whole flow over MCP alone: follow it, list, cancel,
// read text outputs, fresh download links, and uploads for file inputs.
import type { CallToolResult, McpServer, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { requireTool } from '../../app/jobs/create-job.ts'
import { cancelJob } from '../../app/jobs/job-actions.ts'
import { jobRequestFrom } from '../../app/jobs/job-request.ts'
import { quoteJob } from '../../app/jobs/quote-job.ts'
import { readFileChunk } from '../../app/jobs/read-file-chunk.ts'
import { DomainError } from '../../domain/errors.ts'
import { jobIdPattern } from '../../domain/ids.ts'
import { getJob, listJobs } from '../../projections/jobs/queries.ts'
import { createUploadWithinLimits } from '../account-storage.ts'
import { requireScope, runScope } from '../auth.ts'
import { takeQuote } from '../quote-limit.ts'
import { quote as quoteSchema } from '../quote-schema.ts'
import { renderOptions, signedUploadUrl } from '../signed-paths.ts'
import {
  downloadLinksSchema,
  fileChunkSchema,
  jobActionSchema,
  jobPageSchema,
  jobSchema,
  toolOutput,
  uploadSchema,
} from './output-schemas.ts'
import { jobResult, structured } from './results.ts'
import { failure, type ToolContext } from './tool-context.ts'
import { advertisedSchema, jobFieldsOf } from './tool-input.ts'
import { waitForJob } from './wait-for-job.ts'

const reading: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
}
const jobId = z.string().regex(jobIdPattern).describe('The job id, j_ followed by 26 characters.')

interface Companion<Input extends z.ZodObject> {
  name: string
  title: string
  description: string
  input: Input
  output: z.ZodObject
  annotations: ToolAnnotations
  run(args: z.infer<Input>, ctx: ServerContext): Promise<CallToolResult>
}

/** Arguments are parsed here rather than by the SDK, so a bad one is an invalid_request tool error like any other. */
function register<Input extends z.ZodObject>(
  server: McpServer,
  context: ToolContext,
  companion: Companion<Input>,
): void {
  const jsonSchema = z.toJSONSchema(companion.input, { io: 'input' }) as Record<string, unknown>
  delete jsonSchema.$schema
  server.registerTool(
    companion.name,
    {
      title: companion.title,
      description: companion.description,
      inputSchema: advertisedSchema(jsonSchema),
      outputSchema: toolOutput(companion.output),
      annotations: { title: companion.title, ...companion.annotations },
    },
    async (raw, ctx) => {
      try {
        if (!companion.annotations.readOnlyHint) requireScope(context.principal, runScope)
        const parsed = companion.input.safeParse(raw)
        if (!parsed.success) {
          const issues = parsed.error.issues.map(
            (issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`,
          )
          throw new DomainError(
            'invalid_request',
            `Invalid arguments for ${companion.name}: ${issues.join('; ')}.`,
          )
        }
        return await companion.run(parsed.data, ctx)
      } catch (error) {
        return failure(context, error)
      }
    },
  )
}

export function registerCompanionTools(
  server: McpServer,
  context: ToolContext,
  { uploads }: { uploads: boolean },
): void {
  const { services, principal, waitMs } = context
  const { accountId } = principal
  const maxWaitSeconds = Math.floor(waitMs / 1000)
  const findJob = async (id: string) => {
    const job = await getJob(services.models, accountId, id, renderOptions(services))
    if (!job) throw new DomainError('not_found', `No job ${id}.`)
    return job
  }

  register(server, context, {
    name: 'get_job',
    title: 'Get a job',
    description: `Get a job by id: its status, result and output links. With wait_seconds (up to ${maxWaitSeconds}) the call waits that long for a queued or running job to finish, sending progress; call again while status is queued or running.`,
    input: z.strictObject({
      job_id: jobId,
      wait_seconds: z
        .int()
        .min(0)
        .max(maxWaitSeconds)
        .default(0)
        .describe('How long to wait for the job to finish.'),
    }),
    output: jobSchema,
    annotations: reading,
    async run({ job_id, wait_seconds }, ctx) {
      const started = Date.now()
      const job =
        wait_seconds > 0
          ? await waitForJob(services, accountId, job_id, wait_seconds * 1000, ctx)
          : await findJob(job_id)
      return jobResult(job, Math.round((Date.now() - started) / 1000))
    },
  })

  register(server, context, {
    name: 'quote_job',
    title: 'Quote a job',
    description:
      'Ask what a job would cost before starting it: give the tool name and the same arguments you would pass to that tool (options and upload_id, url or job_file). The input is measured (faces, pages) but nothing runs, nothing is charged and no quota is used. Answers the credits, your balance, and whether the job would be admitted now (with the error code it would get). Quotes have their own, lower rate limit.',
    input: z.strictObject({
      tool: z.string().max(64).describe('The tool to quote, e.g. split_3d_model.'),
      arguments: z
        .record(z.string(), z.json())
        .default({})
        .describe('The arguments you would call the tool with (its options and its input).'),
    }),
    output: quoteSchema,
    annotations: { ...reading, idempotentHint: false, openWorldHint: true },
    async run({ tool, arguments: args }) {
      takeQuote(services, principal.credentialId)
      const definition = requireTool(tool)
      const request = jobRequestFrom(
        definition,
        { kind: 'fields', fields: jobFieldsOf(args) },
        services.ctx.config,
      )
      return structured(
        await quoteJob(services.ctx, services.measureInput, {
          accountId,
          tool: definition.id,
          options: request.options,
          input: request.input,
        }),
      )
    },
  })

  register(server, context, {
    name: 'list_jobs',
    title: 'List jobs',
    description:
      'List your jobs, newest first, optionally only one tool or status. Pass next_before as before to read the next page.',
    input: z.strictObject({
      limit: z.int().min(1).max(100).default(20),
      before: z.int().optional().describe('The next_before of the previous page.'),
      tool: z.string().optional(),
      status: jobSchema.shape.status.optional(),
    }),
    output: jobPageSchema,
    annotations: reading,
    async run({ limit, before, tool, status }) {
      return structured(
        await listJobs(
          services.models,
          accountId,
          { limit, before: before ?? null, tool: tool ?? null, status: status ?? null },
          renderOptions(services),
        ),
      )
    },
  })

  register(server, context, {
    name: 'cancel_job',
    title: 'Cancel a job',
    description:
      'Cancel a queued job (it costs nothing). A job already running cannot be canceled (job_running). Safe to retry.',
    input: z.strictObject({ job_id: jobId }),
    output: jobActionSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run({ job_id }) {
      const { id, status, position } = await cancelJob(services.ctx, accountId, job_id)
      await services.waitForPosition(position)
      return structured({ id, status })
    },
  })

  register(server, context, {
    name: 'read_job_file',
    title: 'Read a text output',
    description:
      'Read a text output of a finished job (.txt, .json, .md, .csv) in chunks by byte offset. Start at offset 0 and pass next_offset as offset until eof is true.',
    input: z.strictObject({
      job_id: jobId,
      name: z.string().min(1).describe('A file name from result.files, including any folder part.'),
      offset: z.int().min(0).default(0).describe('Byte offset to start at.'),
      limit: z.int().min(16).max(100_000).default(20_000).describe('Bytes to read.'),
    }),
    output: fileChunkSchema,
    annotations: reading,
    async run({ job_id, name, offset, limit }) {
      return structured(
        await readFileChunk(services.ctx, services.models, accountId, job_id, name, offset, limit),
      )
    },
  })

  register(server, context, {
    name: 'get_download_links',
    title: 'Get download links',
    description:
      "Fresh signed download URLs for a job's output files (valid up to 24 hours, never past the outputs' expiry).",
    input: z.strictObject({ job_id: jobId }),
    output: downloadLinksSchema,
    annotations: reading,
    async run({ job_id }) {
      const job = await findJob(job_id)
      const links = {
        job_id: job.id,
        status: job.status,
        files: job.result?.files ?? [],
        outputs_expire_at: job.outputs_expire_at,
      }
      return structured(
        links,
        links.files.length === 0 ? `Job ${job.id} has no output files (status ${job.status}).` : undefined,
      )
    },
  })

  if (!uploads) return
  register(server, context, {
    name: 'create_upload',
    title: 'Create an upload',
    description:
      'Create an upload for a file input: returns a URL to PUT the file to (with a Content-Length header, within one hour), then pass upload_id to the tool.',
    input: z.strictObject({
      filename: z.string().min(1).max(255).describe('The file name with its extension, e.g. model.glb.'),
    }),
    output: uploadSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run({ filename }) {
      const upload = await createUploadWithinLimits(services, accountId, filename)
      const url = signedUploadUrl(services, upload.uploadId, upload.expiresAt)
      return structured({
        upload_id: upload.uploadId,
        method: 'PUT' as const,
        url,
        max_bytes: upload.maxBytes,
        expires_at: new Date(upload.expiresAt).toISOString(),
        instructions: `PUT the file's bytes to url with a Content-Length header (for example: curl -T ${filename} '<url>'), then call the tool with upload_id "${upload.uploadId}". The URL takes one file and expires at the time given.`,
      })
    },
  })
}
