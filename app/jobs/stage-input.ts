// Reading a job's input off the request: a raw body or a URL download lands in a staging blob, which
// createJob copies into the job's own folder and then deletes. Nothing here runs before the account
// has been found able to start the job (see createJob).
import { createHash, randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import { DomainError } from '../../domain/errors.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import type { Config } from '../config.ts'
import type { ServiceContext } from '../context.ts'
import { type FetchOptions, fetchToBlob } from '../security/fetch-url.ts'
import { cleanFilename } from '../uploads.ts'
import { storedInputName } from './input-names.ts'

/** Server configuration for URL inputs (tests allow a local HTTPS server); never from requests. */
export type FetchPolicy = Omit<FetchOptions, 'maxBytes' | 'timeoutMs'> & { timeoutMs?: number }

const defaultFetchTimeoutMs = 60_000

/** An input file read into a staging blob, described as the job will record it. */
export interface StagedFile {
  source: 'url' | 'body'
  name: string
  bytes: number
  sha256: string
  blobKey: string
  /** What makes two requests the same input: the URL as given, or the body's SHA-256. */
  origin: string
  /** Staging blobs to delete once the job has its own copy (or was refused). */
  stagingPrefix: string
}

/** The most a tool's input may weigh on this server. */
export const maxInputBytes = (config: Pick<Config, 'uploadMaxBytes'>, tool: ToolDefinition) =>
  Math.min(tool.limits.maxBytes ?? config.uploadMaxBytes, config.uploadMaxBytes)

export async function stageBody(
  ctx: ServiceContext,
  body: Readable,
  declaredBytes: number,
  filename: string,
): Promise<StagedFile> {
  const name = cleanFilename(filename)
  const stagingPrefix = `staging/${randomUUID()}`
  const blobKey = `${stagingPrefix}/${storedInputName(name)}`
  const stored = await ctx.blobs.put(blobKey, body, { maxBytes: declaredBytes })
  if (stored.bytes !== declaredBytes) {
    await ctx.blobs.deletePrefix(stagingPrefix)
    throw new DomainError(
      'invalid_request',
      `Received ${stored.bytes} bytes, but Content-Length said ${declaredBytes}.`,
    )
  }
  return { source: 'body', name, ...stored, blobKey, origin: stored.sha256, stagingPrefix }
}

export async function stageUrl(
  ctx: ServiceContext,
  tool: ToolDefinition,
  url: string,
  filename: string | null,
  policy: FetchPolicy,
): Promise<StagedFile> {
  const stagingPrefix = `staging/${randomUUID()}`
  const blobKey = `${stagingPrefix}/download`
  try {
    const fetched = await fetchToBlob(url, ctx.blobs, blobKey, {
      ...policy,
      maxBytes: maxInputBytes(ctx.config, tool),
      timeoutMs: policy.timeoutMs ?? defaultFetchTimeoutMs,
    })
    const name = cleanFilename(filename ?? fetched.filename)
    return {
      source: 'url',
      name,
      bytes: fetched.bytes,
      sha256: fetched.sha256,
      blobKey,
      origin: url,
      stagingPrefix,
    }
  } catch (error) {
    await ctx.blobs.deletePrefix(stagingPrefix)
    throw error
  }
}

/**
 * The SHA-256 of a body, read and dropped: a replay of a raw-body job is recognised by its bytes
 * without writing them anywhere.
 */
export async function sha256OfBody(body: Readable, maxBytes: number): Promise<string> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of body) {
    bytes += (chunk as Buffer).length
    if (bytes > maxBytes) throw new DomainError('too_large', `The file is larger than ${maxBytes} bytes.`)
    hash.update(chunk as Buffer)
  }
  return hash.digest('hex')
}
