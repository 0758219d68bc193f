// Turns the three request forms into a job input: a raw body or a URL download lands in a staging
// blob (the job copies it into its own folder); an upload id or a job file is passed by reference.
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { InputSpec } from '../app/jobs/create-job.ts'
import { storedInputName } from '../app/jobs/input-names.ts'
import { type FetchOptions, fetchToBlob } from '../app/security/fetch-url.ts'
import type { Services } from '../app/services.ts'
import { cleanFilename } from '../app/uploads.ts'
import { DomainError } from '../domain/errors.ts'
import type { ToolDefinition } from '../domain/tools/catalog.ts'

export type FetchPolicy = Omit<FetchOptions, 'maxBytes' | 'timeoutMs'> & { timeoutMs?: number }

export interface StagedInput {
  input: InputSpec
  /** Staging blobs to delete once the job has its own copy (or was refused). */
  stagingPrefix: string | null
}

const maxBytesFor = (services: Services, tool: ToolDefinition) =>
  Math.min(tool.limits.maxBytes ?? services.ctx.config.uploadMaxBytes, services.ctx.config.uploadMaxBytes)

export async function stageRawBody(
  services: Services,
  tool: ToolDefinition,
  body: Readable,
  contentLength: string | undefined,
  filename: string | undefined,
): Promise<StagedInput> {
  if (contentLength === undefined)
    throw new DomainError('length_required', 'Send the file with a Content-Length header.')
  const declared = Number(contentLength)
  if (!Number.isSafeInteger(declared) || declared < 0)
    throw new DomainError('invalid_request', 'Content-Length must be a whole number of bytes.')
  if (!filename)
    throw new DomainError(
      'invalid_request',
      'Name the file with the filename query parameter, e.g. ?filename=model.glb.',
    )
  const name = cleanFilename(filename)
  const maxBytes = maxBytesFor(services, tool)
  if (declared > maxBytes)
    throw new DomainError('too_large', `${tool.id} takes files up to ${maxBytes} bytes.`)
  if (declared === 0) throw new DomainError('invalid_request', 'The body is empty.')
  const stagingPrefix = `staging/${randomUUID()}`
  const blobKey = `${stagingPrefix}/${storedInputName(name)}`
  const stored = await services.ctx.blobs.put(blobKey, body, { maxBytes: declared })
  if (stored.bytes !== declared) {
    await services.ctx.blobs.deletePrefix(stagingPrefix)
    throw new DomainError(
      'invalid_request',
      `Received ${stored.bytes} bytes, but Content-Length said ${declared}.`,
    )
  }
  return {
    input: {
      kind: 'staged',
      source: 'body',
      name,
      bytes: stored.bytes,
      sha256: stored.sha256,
      blobKey,
      origin: stored.sha256,
    },
    stagingPrefix,
  }
}

export async function stageUrl(
  services: Services,
  tool: ToolDefinition,
  url: string,
  filename: string | undefined,
  policy: FetchPolicy,
): Promise<StagedInput> {
  const stagingPrefix = `staging/${randomUUID()}`
  const key = `${stagingPrefix}/download`
  try {
    const fetched = await fetchToBlob(url, services.ctx.blobs, key, {
      ...policy,
      maxBytes: maxBytesFor(services, tool),
      timeoutMs: policy.timeoutMs ?? 60_000,
    })
    const name = cleanFilename(filename ?? fetched.filename)
    return {
      input: {
        kind: 'staged',
        source: 'url',
        name,
        bytes: fetched.bytes,
        sha256: fetched.sha256,
        blobKey: key,
        origin: url,
      },
      stagingPrefix,
    }
  } catch (error) {
    await services.ctx.blobs.deletePrefix(stagingPrefix)
    throw error
  }
}

export const isRawBody = (body: unknown): body is Readable => body instanceof Readable
