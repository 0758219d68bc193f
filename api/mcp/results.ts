// Tool results: a Job with its outputs as resource links, and errors carrying the same code and
// message as REST. The text content repeats the structured content for clients that only read text.
import type { CallToolResult } from '@modelcontextprotocol/server'
import { clientSafeText } from '../../app/security/client-safe-text.ts'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import { finalStatuses } from '../../domain/job/events.ts'
import { mediaTypeOf } from '../../domain/media-types.ts'
import type { JobResource } from '../../projections/jobs/render.ts'

export type StructuredResult = CallToolResult & { structuredContent: Record<string, unknown> }

export function structured(value: object, summary?: string): StructuredResult {
  const json = JSON.stringify(value)
  return {
    content: [{ type: 'text', text: summary ? `${summary}\n${json}` : json }],
    structuredContent: value as Record<string, unknown>,
  }
}

function followNote(job: JobResource, waitedSeconds: number): string {
  switch (job.status) {
    case 'queued':
    case 'running':
      return `Job ${job.id} is ${job.status} after ${waitedSeconds} s. Call get_job with job_id "${job.id}" and wait_seconds until status is succeeded or failed; reuse your idempotency_key if you call this tool again.`
    case 'succeeded':
      return `Job ${job.id} succeeded. Outputs are linked below; read text outputs with read_job_file, get fresh URLs with get_download_links.`
    case 'failed':
      return `Job ${job.id} failed (${job.error?.code}): ${job.error?.message}${job.error?.hint ? ` Hint: ${job.error.hint}` : ''} Failed jobs cost nothing.`
    default:
      return `Job ${job.id} is ${job.status}.`
  }
}

/** The Job, with a note on how to follow it and one resource link per output file. A failed job is a tool error. */
export function jobResult(job: JobResource, waitedSeconds: number): StructuredResult {
  const result = structured(job, followNote(job, waitedSeconds))
  for (const file of job.result?.files ?? []) {
    const mimeType = mediaTypeOf(file.name)
    result.content.push({
      type: 'resource_link',
      uri: file.url,
      name: file.name,
      ...(mimeType ? { mimeType } : {}),
      size: file.bytes,
    })
  }
  if (job.status === 'failed') result.isError = true
  return result
}

export const isFinal = (job: JobResource) => finalStatuses.has(job.status)

/** A refused call: the REST error's code and message, its hint, and when to retry where that applies. */
export function errorResult(error: unknown): StructuredResult {
  const domain = isDomainError(error) ? error : new DomainError('internal')
  const message = clientSafeText(domain.message)
  const body = {
    error: {
      code: domain.code,
      message,
      hint: domain.hint,
      ...(domain.retryAfterSeconds !== undefined ? { retry_after_seconds: domain.retryAfterSeconds } : {}),
    },
  }
  const retry = domain.retryAfterSeconds !== undefined ? ` Retry after ${domain.retryAfterSeconds} s.` : ''
  const hint = domain.hint ? ` Hint: ${domain.hint}` : ''
  return {
    content: [{ type: 'text', text: `${domain.code}: ${message}${hint}${retry}` }],
    structuredContent: body,
    isError: true,
  }
}
