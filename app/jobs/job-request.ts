// Turning a request into a job request, for every surface: which input forms a tool takes, exactly
// one source, the idempotency key from a header or a field (they must agree, 1 to 100 characters).
// REST and MCP both call jobRequestFrom, so the same mistake gets the same code and message on both.
// Only the request's shape is judged here; nothing is read from the body and nothing is fetched.
import type { Readable } from 'node:stream'
import { z } from 'zod'
import { DomainError } from '../../domain/errors.ts'
import { jobIdPattern, uploadIdPattern } from '../../domain/ids.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import type { Config } from '../config.ts'
import { cleanFilename } from '../uploads.ts'
import { coerceQueryOptions, optionsJsonSchema } from './options.ts'
import { maxInputBytes } from './stage-input.ts'

export const maxIdempotencyKeyLength = 100

/** The JSON form of job creation (the spec's CreateJob); MCP arguments are mapped onto it. */
export const createJobFields = z
  .strictObject({
    upload_id: z.string().regex(uploadIdPattern).optional(),
    url: z.string().max(2048).optional(),
    filename: z.string().min(1).max(255).optional(),
    options: z.record(z.string(), z.unknown()).optional(),
    idempotency_key: z.string().min(1).max(maxIdempotencyKeyLength).optional(),
    job_file: z
      .strictObject({ job_id: z.string().regex(jobIdPattern), name: z.string().min(1).max(1024) })
      .optional(),
  })
  .meta({ id: 'CreateJob' })

/** Where the job's input comes from, as the request named it; nothing is read yet. */
export type RequestedInput =
  | { kind: 'none' }
  | { kind: 'upload'; uploadId: string }
  | { kind: 'job_file'; jobId: string; name: string }
  | { kind: 'url'; url: string; filename: string | null }
  | { kind: 'body'; body: Readable; declaredBytes: number; filename: string }

export interface JobRequest {
  options: unknown
  input: RequestedInput
  idempotencyKey: string | null
}

/** A request as a surface received it. */
export type RequestForm =
  /** JSON fields (REST's JSON body; MCP's arguments with the options gathered under `options`). */
  | { kind: 'fields'; fields: unknown; headerKey?: string | string[] }
  /** The file itself as the body, named and optioned by query parameters (REST only). */
  | {
      kind: 'file'
      body: Readable
      contentLength: string | undefined
      query: Record<string, string | undefined>
      headerKey?: string | string[]
    }

const invalid = (message: string) => new DomainError('invalid_request', message)
const keyLengthMessage = `An idempotency key has 1 to ${maxIdempotencyKeyLength} characters.`

export function sourcesOf(tool: ToolDefinition): string {
  return tool.input.sources.includes('job_file') ? 'upload_id, url or job_file' : 'upload_id or url'
}

function headerKeyOf(headerKey: string | string[] | undefined): string | null {
  if (Array.isArray(headerKey)) throw invalid('Send one Idempotency-Key header.')
  if (headerKey === undefined) return null
  if (headerKey.length === 0 || headerKey.length > maxIdempotencyKeyLength) throw invalid(keyLengthMessage)
  return headerKey
}

function fromFields(tool: ToolDefinition, fields: unknown, headerKey: string | null): JobRequest {
  const parsed = createJobFields.safeParse(fields ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    if (issue.path[0] === 'idempotency_key') throw invalid(keyLengthMessage)
    const what =
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
        : `${issue.path.join('.') || 'body'}: ${issue.message}`
    throw invalid(`Invalid job request: ${what}.`)
  }
  const body = parsed.data
  if (body.idempotency_key !== undefined && headerKey !== null && headerKey !== body.idempotency_key)
    throw invalid('The Idempotency-Key header and idempotency_key differ.')
  const idempotencyKey = body.idempotency_key ?? headerKey
  const given = [body.upload_id, body.url, body.job_file].filter((s) => s !== undefined).length
  if (tool.input.kind === 'parameters') {
    if (given > 0 || body.filename !== undefined) throw invalid(`${tool.id} takes only options, no file.`)
    return { options: body.options ?? {}, input: { kind: 'none' }, idempotencyKey }
  }
  if (given !== 1)
    throw invalid(
      `${tool.id} needs exactly one of ${sourcesOf(tool)} (over REST the file may instead be the request body).`,
    )
  if (body.job_file !== undefined && !tool.input.sources.includes('job_file'))
    throw invalid(`${tool.id} does not take job_file; use upload_id or url.`)
  const input: RequestedInput =
    body.upload_id !== undefined
      ? { kind: 'upload', uploadId: body.upload_id }
      : body.job_file !== undefined
        ? { kind: 'job_file', jobId: body.job_file.job_id, name: body.job_file.name }
        : { kind: 'url', url: body.url!, filename: body.filename ?? null }
  return { options: body.options ?? {}, input, idempotencyKey }
}

function fromFile(
  tool: ToolDefinition,
  form: Extract<RequestForm, { kind: 'file' }>,
  headerKey: string | null,
  config: Pick<Config, 'uploadMaxBytes'>,
): JobRequest {
  if (tool.input.kind === 'parameters') throw invalid(`${tool.id} takes only options as JSON, no file body.`)
  const { filename, idempotency_key: queryKey, ...optionParameters } = form.query
  if (queryKey !== undefined)
    throw invalid('Send the idempotency key as the Idempotency-Key header with a file body.')
  if (form.contentLength === undefined)
    throw new DomainError('length_required', 'Send the file with a Content-Length header.')
  const declaredBytes = Number(form.contentLength)
  if (!Number.isSafeInteger(declaredBytes) || declaredBytes < 0)
    throw invalid('Content-Length must be a whole number of bytes.')
  if (!filename) throw invalid('Name the file with the filename query parameter, e.g. ?filename=model.glb.')
  const name = cleanFilename(filename)
  const maxBytes = maxInputBytes(config, tool)
  if (declaredBytes > maxBytes)
    throw new DomainError('too_large', `${tool.id} takes files up to ${maxBytes} bytes.`)
  if (declaredBytes === 0) throw invalid('The body is empty.')
  return {
    options: coerceQueryOptions(optionParameters, optionsJsonSchema(tool)),
    input: { kind: 'body', body: form.body, declaredBytes, filename: name },
    idempotencyKey: headerKey,
  }
}

export function jobRequestFrom(
  tool: ToolDefinition,
  form: RequestForm,
  config: Pick<Config, 'uploadMaxBytes'>,
): JobRequest {
  const headerKey = headerKeyOf(form.headerKey)
  return form.kind === 'file'
    ? fromFile(tool, form, headerKey, config)
    : fromFields(tool, form.fields, headerKey)
}
