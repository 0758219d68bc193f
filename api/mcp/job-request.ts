// Splits a catalog tool's MCP arguments into the job's options and its input. A URL is downloaded
// here into a staging blob (SSRF-safe fetch); createJob copies it into the job, then it is deleted.
import type { InputSpec } from '../../app/jobs/create-job.ts'
import type { Services } from '../../app/services.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import { stageUrl } from '../job-input.ts'
import { inputFieldNames } from './tool-input.ts'

export interface JobRequest {
  options: Record<string, unknown>
  input: InputSpec
  idempotencyKey: string | null
  /** Staging blobs to delete once createJob has returned. */
  stagingPrefix: string | null
}

const urlFetchTimeoutMs = 60_000

function optionalString(args: Record<string, unknown>, name: string, maxLength: number): string | null {
  const value = args[name]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new DomainError('invalid_request', `${name} must be a string of 1 to ${maxLength} characters.`)
  }
  return value
}

function jobFileArgument(value: unknown): { jobId: string; name: string } | null {
  if (value === undefined || value === null) return null
  const { job_id: jobId, name } = (typeof value === 'object' ? value : {}) as Record<string, unknown>
  if (typeof jobId !== 'string' || typeof name !== 'string') {
    throw new DomainError(
      'invalid_request',
      'job_file must be {job_id, name} naming an output of one of your jobs.',
    )
  }
  return { jobId, name }
}

export async function jobRequestFromArguments(
  services: Services,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Promise<JobRequest> {
  const options = Object.fromEntries(Object.entries(args).filter(([name]) => !inputFieldNames.has(name)))
  const idempotencyKey = optionalString(args, 'idempotency_key', 100)
  const uploadId = optionalString(args, 'upload_id', 100)
  const url = optionalString(args, 'url', 2048)
  const filename = optionalString(args, 'filename', 255)
  const jobFile = jobFileArgument(args.job_file)
  const given = [uploadId, url, jobFile].filter((value) => value !== null).length
  if (tool.input.kind === 'parameters') {
    if (given > 0 || filename !== null)
      throw new DomainError('invalid_request', `${tool.id} takes only options, no file.`)
    return { options, input: { kind: 'none' }, idempotencyKey, stagingPrefix: null }
  }
  const ways = tool.input.sources.includes('job_file') ? 'upload_id, url or job_file' : 'upload_id or url'
  if (given !== 1) throw new DomainError('invalid_request', `${tool.id} needs exactly one of ${ways}.`)
  if (url !== null)
    return {
      options,
      idempotencyKey,
      ...(await stageUrl(services, tool, url, filename ?? undefined, { timeoutMs: urlFetchTimeoutMs })),
    }
  const input: InputSpec =
    uploadId !== null ? { kind: 'upload', uploadId } : { kind: 'job_file', ...jobFile! }
  return { options, input, idempotencyKey, stagingPrefix: null }
}
