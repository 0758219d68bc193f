// Starting a job: check the tool, options and input, admit it on the account stream (one decision:
// credits, active jobs, quota, idempotency), create the job stream, and dispatch it.
import { createHash } from 'node:crypto'
import { extname } from 'node:path'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import { newJobId } from '../../domain/ids.ts'
import { type JobInput, jobStream } from '../../domain/job/events.ts'
import { getTool, isToolId, type ToolDefinition, type ToolId } from '../../domain/tools/catalog.ts'
import { smallestPrice } from '../../domain/tools/pricing.ts'
import { uploadStream } from '../../domain/upload/events.ts'
import { jobBlobPrefix, jobInputKey, type ServiceContext } from '../context.ts'
import { accountDecider, jobDecider, uploadDecider } from '../deciders.ts'
import { requireAvailableTool } from '../generation/availability.ts'
import { reserveGeneration } from '../generation/capacity.ts'
import { handleCommand, readState } from '../handle-command.ts'
import { log } from '../log.ts'
import { resolveOptions } from './options.ts'

/** The input of a job as the surface received it. Files arrive already stored under a staging key. */
export type InputSpec =
  | { kind: 'none' }
  | { kind: 'upload'; uploadId: string }
  | { kind: 'job_file'; jobId: string; name: string }
  | {
      kind: 'staged'
      source: 'url' | 'body'
      name: string
      bytes: number
      sha256: string
      blobKey: string
      origin: string
    }

export interface CreateJobRequest {
  accountId: string
  tool: string
  options: unknown
  input: InputSpec
  idempotencyKey: string | null
}

export interface CreateJobResult {
  jobId: string
  /** false when an idempotency key returned an earlier job. */
  created: boolean
  /** Global position to wait for before reading the job back. */
  position: number
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export function requireTool(id: string): ToolDefinition {
  if (!isToolId(id)) throw new DomainError('not_found', `No tool named ${id}; GET /v1/tools lists them.`)
  return getTool(id as ToolId)
}

export function checkInputShape(tool: ToolDefinition, input: InputSpec): void {
  if (tool.input.kind === 'parameters') {
    if (input.kind !== 'none')
      throw new DomainError('invalid_request', `${tool.id} takes only options, no file.`)
    return
  }
  if (input.kind === 'none') {
    throw new DomainError(
      'invalid_request',
      `${tool.id} needs a file: give upload_id or url${tool.input.sources.includes('job_file') ? ' or job_file' : ''}, or send the file as the body.`,
    )
  }
  if (input.kind === 'job_file' && !tool.input.sources.includes('job_file')) {
    throw new DomainError('invalid_request', `${tool.id} does not take job_file; use upload_id or url.`)
  }
}

function checkExtension(tool: ToolDefinition, name: string): void {
  const extension = extname(name).slice(1).toLowerCase()
  if (!tool.input.extensions.includes(extension)) {
    throw new DomainError(
      'invalid_request',
      `${tool.id} takes ${tool.input.extensions.map((e) => `.${e}`).join(', ')} files; "${name}" is not one (give filename to name the type).`,
    )
  }
}

/** Moves the input into the job's own blob folder and describes it (price quotes stage the same way). */
export async function stageInput(
  ctx: ServiceContext,
  tool: ToolDefinition,
  jobId: string,
  accountId: string,
  input: InputSpec,
): Promise<JobInput> {
  switch (input.kind) {
    case 'none':
      return { name: '', bytes: 0, source: 'none', blobKey: null, sha256: null }
    case 'staged': {
      checkExtension(tool, input.name)
      const blobKey = jobInputKey(jobId, input.name)
      await ctx.blobs.copy(input.blobKey, blobKey)
      return { name: input.name, bytes: input.bytes, source: input.source, blobKey, sha256: input.sha256 }
    }
    case 'upload': {
      const { state } = await readState(ctx.store, uploadStream(input.uploadId), uploadDecider)
      const now = ctx.now()
      if (
        !state.exists ||
        state.accountId !== accountId ||
        !state.received ||
        state.expired ||
        now >= state.received.retainUntil
      ) {
        throw new DomainError(
          'upload_not_found',
          `Upload ${input.uploadId} is missing, not yet received, or expired.`,
        )
      }
      checkExtension(tool, state.filename)
      const blobKey = jobInputKey(jobId, state.filename)
      await ctx.blobs.copy(state.received.blobKey, blobKey)
      return {
        name: state.filename,
        bytes: state.received.bytes,
        source: 'upload',
        blobKey,
        sha256: state.received.sha256,
      }
    }
    case 'job_file': {
      const { state } = await readState(ctx.store, jobStream(input.jobId), jobDecider)
      const file = state.result?.files.find((f) => f.name === input.name)
      if (
        !state.exists ||
        state.deleted ||
        state.accountId !== accountId ||
        state.status !== 'succeeded' ||
        !file
      ) {
        throw new DomainError(
          'not_found',
          `No output "${input.name}" of job ${input.jobId} is available to you (outputs expire).`,
        )
      }
      const baseName = input.name.split('/').at(-1)!
      checkExtension(tool, baseName)
      const blobKey = jobInputKey(jobId, baseName)
      await ctx.blobs.copy(`jobs/${input.jobId}/out/${input.name}`, blobKey)
      return { name: baseName, bytes: file.bytes, source: 'upload', blobKey, sha256: file.sha256 }
    }
  }
}

/** What makes two requests "the same" for idempotency: tool, input identity and options. */
function requestHashOf(tool: string, input: InputSpec, options: Record<string, unknown>): string {
  const identity =
    input.kind === 'staged'
      ? `${input.source}:${input.origin}`
      : input.kind === 'upload'
        ? `upload:${input.uploadId}`
        : input.kind === 'job_file'
          ? `job_file:${input.jobId}/${input.name}`
          : 'none'
  const sortedOptions = JSON.stringify(options, Object.keys(options).sort())
  return sha256(`${tool}\n${identity}\n${sortedOptions}`)
}

export async function createJob(ctx: ServiceContext, request: CreateJobRequest): Promise<CreateJobResult> {
  const tool = requireTool(request.tool)
  requireAvailableTool(tool.id)
  const options = resolveOptions(tool, request.options)
  checkInputShape(tool, request.input)
  if (tool.idempotencyRequired && request.idempotencyKey === null) {
    throw new DomainError(
      'invalid_request',
      `${tool.id} requires an idempotency key (Idempotency-Key header or idempotency_key); reuse it when you retry.`,
    )
  }
  if (
    request.input.kind === 'staged' &&
    tool.limits.maxBytes !== null &&
    request.input.bytes > tool.limits.maxBytes
  ) {
    throw new DomainError('too_large', `${tool.id} takes files up to ${tool.limits.maxBytes} bytes.`)
  }
  // While the bus cannot say how full it is, the job is still accepted: it is durable in the event
  // store and the housekeeper publishes it once the bus answers again.
  const pending = await ctx.dispatcher.pending().catch(() => 0)
  if (pending >= ctx.config.maxQueuedJobs) {
    throw new DomainError('busy', 'The service is at capacity.', { retryAfterSeconds: 10 })
  }

  const jobId = newJobId(ctx.random)
  const requestHash = requestHashOf(tool.id, request.input, options)
  let input: JobInput
  try {
    input = await stageInput(ctx, tool, jobId, request.accountId, request.input)
  } catch (error) {
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    throw error
  }

  let admitted: Awaited<ReturnType<typeof admit>>
  let reservation: Awaited<ReturnType<typeof reserveGeneration>> | null = null
  try {
    reservation = await reserveGeneration(ctx, tool, {
      jobId,
      accountId: request.accountId,
      idempotencyKey: request.idempotencyKey,
    })
    admitted = await admit(ctx, request, tool, jobId, requestHash)
  } catch (error) {
    await reservation?.release()
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    throw error
  }
  if (admitted.events.length === 0) {
    await reservation.release()
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    const earlier =
      request.idempotencyKey === null ? undefined : admitted.state.idempotency.get(request.idempotencyKey)
    if (!earlier) throw new DomainError('internal', 'Admission changed nothing.')
    const { position } = await readState(ctx.store, jobStream(earlier.jobId), jobDecider)
    return { jobId: earlier.jobId, created: false, position }
  }

  const now = ctx.now()
  if (request.input.kind === 'upload') {
    await handleCommand(ctx.store, uploadStream(request.input.uploadId), uploadDecider, {
      type: 'UseUpload',
      data: { jobId, accountId: request.accountId, now },
    })
  }
  const created = await handleCommand(ctx.store, jobStream(jobId), jobDecider, {
    type: 'CreateJob',
    data: {
      jobId,
      accountId: request.accountId,
      tool: tool.id,
      input,
      options,
      idempotencyKey: request.idempotencyKey,
      now,
    },
  })
  // The job is recorded; if the bus is unreachable now, the housekeeper publishes it once it is back.
  await ctx.dispatcher.publish({ jobId, tool: tool.id }).catch((error: unknown) => {
    log.warn({ jobId, err: error }, 'job queued but not yet published; the housekeeper publishes it')
  })
  return { jobId, created: true, position: created.position }
}

function admit(
  ctx: ServiceContext,
  request: CreateJobRequest,
  tool: ToolDefinition,
  jobId: string,
  requestHash: string,
) {
  return handleCommand(
    ctx.store,
    accountStream(request.accountId),
    accountDecider,
    admissionCommand(ctx, request, tool, jobId, requestHash),
  )
}

/** The admission decision for a job (price quotes ask it without appending). */
export function admissionCommand(
  ctx: ServiceContext,
  request: Pick<CreateJobRequest, 'idempotencyKey'>,
  tool: ToolDefinition,
  jobId: string,
  requestHash: string | null,
): AccountCommand {
  return {
    type: 'AdmitJob',
    data: {
      jobId,
      tool: {
        id: tool.id,
        minPrice: smallestPrice(tool.pricing),
        jobsPerDay: tool.limits.jobsPerDay,
        jobsPerDayBeforePurchase: tool.limits.jobsPerDayBeforePurchase,
      },
      idempotencyKey: request.idempotencyKey,
      requestHash,
      policy: {
        maxActiveJobs: ctx.config.maxActiveJobsPerAccount,
        forgottenKeyMs: ctx.config.forgottenKeyMs,
      },
      now: ctx.now(),
    },
  }
}
