// Starting a job, in the order that keeps work from happening before it is owed:
// 1. a known idempotency key answers with the earlier job, before anything else (no backpressure
//    check, no download, no copy, no capacity reservation);
// 2. what the account's state decides without the input (disabled or frozen, balance below the tool's
//    smallest price, active jobs, quota) refuses the job before a byte of it is read or fetched;
// 3. the input is staged, then the job is admitted on the account stream (one decision, which asks
//    1 and 2 again against the revision it appends to, so racing requests stay exact), the job
//    stream is created, and the job is dispatched.
// A job of parameters only, of a tool that reserves no capacity, has nothing costly between 1 and the
// decision of 3: checks 1 and 2 may then run on an account state this process knew current a moment
// ago, which spares a read. They only ever let such a job through that way; anything they would find
// (a replay, a refusal) is looked for again on the stream itself, and so is a replay before the
// backpressure refusal. A state gone stale meanwhile makes the decision's append conflict, and the
// decision is then made again on the stream as read.
import { hash } from 'node:crypto'
import { extname } from 'node:path'
import { earlierJobFor, requireAdmissible } from '../../domain/account/admission.ts'
import type { AccountCommand, AdmissionPolicy, ToolPolicy } from '../../domain/account/commands.ts'
import { accountStream } from '../../domain/account/events.ts'
import type { AccountState } from '../../domain/account/state.ts'
import { DomainError } from '../../domain/errors.ts'
import { newJobId } from '../../domain/ids.ts'
import { type JobEvent, type JobInput, jobStream } from '../../domain/job/events.ts'
import { getTool, isToolId, type ToolDefinition, type ToolId } from '../../domain/tools/catalog.ts'
import { smallestPrice } from '../../domain/tools/pricing.ts'
import { uploadStream } from '../../domain/upload/events.ts'
import { checkUploadBody } from '../../domain/upload/storage-limits.ts'
import { jobBlobPrefix, jobInputKey, type ServiceContext } from '../context.ts'
import { accountDecider, jobDecider, uploadDecider } from '../deciders.ts'
import { requireAvailableTool } from '../generation/availability.ts'
import { reserveGeneration } from '../generation/capacity.ts'
import { readState } from '../handle-command.ts'
import { handleCommands, recentState, type StreamOutcome, streamCommand } from '../handle-commands.ts'
import { log } from '../log.ts'
import type { RequestedInput } from './job-request.ts'
import { resolveOptions } from './options.ts'
import {
  type FetchPolicy,
  maxInputBytes,
  type StagedFile,
  sha256OfBody,
  stageBody,
  stageUrl,
} from './stage-input.ts'

/** The input once read: URL and body inputs are staged files; the others are references. */
export type ReadyInput =
  | Exclude<RequestedInput, { kind: 'url' } | { kind: 'body' }>
  | ({ kind: 'staged' } & StagedFile)

export interface CreateJobRequest {
  accountId: string
  tool: string
  options: unknown
  input: RequestedInput
  idempotencyKey: string | null
}

export interface CreateJobResult {
  jobId: string
  /** false when an idempotency key returned an earlier job. */
  created: boolean
  /** Global position to wait for before reading the job back. */
  position: number
  /** The job as decided, for a new job: a surface can answer from it without waiting for the read model. */
  createdEvent?: JobCreatedData
}

type JobCreatedData = Extract<JobEvent, { type: 'JobCreated' }>['data']

const sha256 = (text: string) => hash('sha256', text, 'hex')

export function requireTool(id: string): ToolDefinition {
  if (!isToolId(id)) throw new DomainError('not_found', `No tool named ${id}; GET /v1/tools lists them.`)
  return getTool(id as ToolId)
}

/** The request's input against the tool's input kind (jobRequestFrom already did this for surfaces). */
export function checkInputShape(tool: ToolDefinition, input: RequestedInput): void {
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
  input: ReadyInput,
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

/** The identity of a request's input for idempotency, in the form recorded with its key. */
function inputIdentity(input: ReadyInput | Exclude<RequestedInput, { kind: 'body' }>): string {
  switch (input.kind) {
    case 'staged':
      return `${input.source}:${input.origin}`
    case 'url':
      return `url:${input.url}`
    case 'upload':
      return `upload:${input.uploadId}`
    case 'job_file':
      return `job_file:${input.jobId}/${input.name}`
    case 'none':
      return 'none'
  }
}

/** What makes two requests "the same" for idempotency: tool, input identity and options. */
function requestHashOf(tool: string, identity: string, options: Record<string, unknown>): string {
  const sortedOptions = JSON.stringify(options, Object.keys(options).sort())
  return sha256(`${tool}\n${identity}\n${sortedOptions}`)
}

const toolPolicyOf = (tool: ToolDefinition): ToolPolicy => ({
  id: tool.id,
  minPrice: smallestPrice(tool.pricing),
  jobsPerDay: tool.limits.jobsPerDay,
  jobsPerDayBeforePurchase: tool.limits.jobsPerDayBeforePurchase,
})

const admissionPolicyOf = (ctx: ServiceContext): AdmissionPolicy => ({
  maxActiveJobs: ctx.config.maxActiveJobsPerAccount,
  forgottenKeyMs: ctx.config.forgottenKeyMs,
})

/**
 * Steps 1 and 2: the earlier job when the key is a replay; otherwise returns null, or refuses a job
 * the account could not start. A raw body is only hashed (never stored) when its key is live.
 */
async function replayOrRefusal(
  ctx: ServiceContext,
  accountId: string,
  tool: ToolDefinition,
  input: RequestedInput,
  options: Record<string, unknown>,
  idempotencyKey: string | null,
  trustRecent: boolean,
): Promise<string | null> {
  const policy = admissionPolicyOf(ctx)
  const now = ctx.now()
  if (trustRecent) {
    const recent = recentState<AccountState>(ctx.store, accountStream(accountId))
    const unknownKey = idempotencyKey === null || !recent?.idempotency.has(idempotencyKey)
    if (recent && unknownKey && admissible(recent, { tool: toolPolicyOf(tool), policy, now })) return null
  }
  const { state } = await readState(ctx.store, accountStream(accountId), accountDecider)
  const seen = idempotencyKey === null ? undefined : state.idempotency.get(idempotencyKey)
  if (seen) {
    // A forgotten key never compares requests, so only a live key makes a body worth hashing.
    const identity =
      input.kind !== 'body'
        ? inputIdentity(input)
        : seen.forgottenAt === null
          ? `body:${await sha256OfBody(input.body, input.declaredBytes)}`
          : 'body'
    const requestHash = requestHashOf(tool.id, identity, options)
    const earlier = earlierJobFor(state, { toolId: tool.id, idempotencyKey, requestHash, policy, now })
    if (earlier !== null) return earlier
  }
  requireAdmissible(state, { tool: toolPolicyOf(tool), policy, now })
  return null
}

function admissible(state: AccountState, d: Parameters<typeof requireAdmissible>[1]): boolean {
  try {
    requireAdmissible(state, d)
    return true
  } catch (error) {
    if (error instanceof DomainError) return false
    throw error
  }
}

/** Reads a URL or body input into a staged file (price quotes read the same way). */
export async function readInput(
  ctx: ServiceContext,
  tool: ToolDefinition,
  input: RequestedInput,
  fetchPolicy: FetchPolicy,
): Promise<ReadyInput> {
  if (input.kind === 'url')
    return { kind: 'staged', ...(await stageUrl(ctx, tool, input.url, input.filename, fetchPolicy)) }
  if (input.kind === 'body')
    return { kind: 'staged', ...(await stageBody(ctx, input.body, input.declaredBytes, input.filename)) }
  return input
}

export async function createJob(
  ctx: ServiceContext,
  request: CreateJobRequest,
  {
    fetchPolicy = {},
    storedBytes,
  }: {
    fetchPolicy?: FetchPolicy
    /** The bytes the account keeps (storage read model): a body or URL input must fit under the cap. */
    storedBytes?: (accountId: string) => Promise<number>
  } = {},
): Promise<CreateJobResult> {
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
  const check = (trustRecent: boolean) =>
    replayOrRefusal(ctx, request.accountId, tool, request.input, options, request.idempotencyKey, trustRecent)
  const cheap = request.input.kind === 'none' && !tool.generation
  const earlier = await check(cheap)
  if (earlier !== null) return replayed(ctx, earlier)

  // While the bus cannot say how full it is, the job is still accepted: it is durable in the event
  // store and the housekeeper publishes it once the bus answers again.
  const pending = await ctx.dispatcher.pending().catch(() => 0)
  if (pending >= ctx.config.maxQueuedJobs) {
    // A replay is answered even at capacity, so a check made on a recent state is made on the stream.
    const replay = cheap ? await check(false) : null
    if (replay !== null) return replayed(ctx, replay)
    throw new DomainError('busy', 'The service is at capacity.', { retryAfterSeconds: 10 })
  }

  // A body or URL input becomes bytes the account keeps: refused before it is read when it cannot fit.
  if (storedBytes && (request.input.kind === 'body' || request.input.kind === 'url'))
    checkUploadBody(
      await storedBytes(request.accountId),
      request.input.kind === 'body' ? request.input.declaredBytes : 0,
      ctx.config.storageLimits,
    )
  const ready = await readInput(ctx, tool, request.input, fetchPolicy)
  try {
    return await admitAndCreate(ctx, request, tool, options, ready)
  } finally {
    if (ready.kind === 'staged') await ctx.blobs.deletePrefix(ready.stagingPrefix)
  }
}

async function replayed(ctx: ServiceContext, jobId: string): Promise<CreateJobResult> {
  const { position } = await readState(ctx.store, jobStream(jobId), jobDecider)
  return { jobId, created: false, position }
}

/** Step 3, once the input is read: copy it into the job, reserve, admit, create, dispatch. */
async function admitAndCreate(
  ctx: ServiceContext,
  request: CreateJobRequest,
  tool: ToolDefinition,
  options: Record<string, unknown>,
  ready: ReadyInput,
): Promise<CreateJobResult> {
  if (ready.kind === 'staged' && ready.bytes > maxInputBytes(ctx.config, tool)) {
    throw new DomainError(
      'too_large',
      `${tool.id} takes files up to ${maxInputBytes(ctx.config, tool)} bytes.`,
    )
  }
  const jobId = newJobId(ctx.random, ctx.now())
  const requestHash = requestHashOf(tool.id, inputIdentity(ready), options)
  let input: JobInput
  try {
    input = await stageInput(ctx, tool, jobId, request.accountId, ready)
  } catch (error) {
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    throw error
  }

  let reservation: Awaited<ReturnType<typeof reserveGeneration>> | null = null
  let recorded: StreamOutcome[]
  try {
    reservation = await reserveGeneration(ctx, tool, {
      jobId,
      accountId: request.accountId,
      idempotencyKey: request.idempotencyKey,
    })
    recorded = await admitAndRecord(ctx, request, tool, jobId, requestHash, input, options, ready)
  } catch (error) {
    await reservation?.release()
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    throw error
  }
  const [admitted, created] = [recorded[0]!, recorded.at(-1)!]
  if (admitted.events.length === 0) {
    // A request with the same key won the race since step 1: answer with its job.
    await reservation.release()
    await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
    const earlier =
      request.idempotencyKey === null
        ? undefined
        : (admitted.state as AccountState).idempotency.get(request.idempotencyKey)
    if (!earlier) throw new DomainError('internal', 'Admission changed nothing.')
    return replayed(ctx, earlier.jobId)
  }

  // The job is recorded; if the bus is unreachable now, the housekeeper publishes it once it is back.
  await ctx.dispatcher.publish({ jobId, tool: tool.id }).catch((error: unknown) => {
    log.warn({ jobId, err: error }, 'job queued but not yet published; the housekeeper publishes it')
  })
  const event = created.events[0] as Extract<JobEvent, { type: 'JobCreated' }>
  return { jobId, created: true, position: created.position, createdEvent: event.data }
}

/**
 * The admission on the account stream, the upload's use and the job's stream, decided together and
 * appended in one commit: one fsync, and never an admission without its job. The account's decision
 * is the gate (a key replayed since step 1 appends nothing) and the guard against racing requests:
 * a concurrent write to the account makes the append fail, and all three are decided again.
 */
function admitAndRecord(
  ctx: ServiceContext,
  request: CreateJobRequest,
  tool: ToolDefinition,
  jobId: string,
  requestHash: string,
  input: JobInput,
  options: Record<string, unknown>,
  ready: ReadyInput,
): Promise<StreamOutcome[]> {
  const now = ctx.now()
  const admission = streamCommand(
    accountStream(request.accountId),
    accountDecider,
    admissionCommand(ctx, request, tool, jobId, requestHash),
  )
  const useUpload =
    ready.kind === 'upload'
      ? [
          streamCommand(uploadStream(ready.uploadId), uploadDecider, {
            type: 'UseUpload',
            data: { jobId, accountId: request.accountId, now },
          }),
        ]
      : []
  const createJobStream = streamCommand(
    jobStream(jobId),
    jobDecider,
    {
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
    },
    { fresh: true },
  )
  return handleCommands(ctx.store, [admission, ...useUpload, createJobStream])
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
      tool: toolPolicyOf(tool),
      idempotencyKey: request.idempotencyKey,
      requestHash,
      policy: admissionPolicyOf(ctx),
      now: ctx.now(),
    },
  }
}
