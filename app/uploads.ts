// Uploads: a signed PUT URL valid one hour; the PUT streams into the blob store while hashing.
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import { DomainError } from '../domain/errors.ts'
import { newUploadId } from '../domain/ids.ts'
import { uploadStream } from '../domain/upload/events.ts'
import { checkNewUpload, checkUploadBody, type StorageUsage } from '../domain/upload/storage-limits.ts'
import type { ServiceContext } from './context.ts'
import { uploadDecider } from './deciders.ts'
import { handleCommand, readState } from './handle-command.ts'

/** Everything one upload keeps; the housekeeper removes it when the upload expires. */
export const uploadFolder = (uploadId: string) => `uploads/${uploadId}`
/**
 * Each PUT streams into a blob of its own; the one the upload's decider records is the upload's file.
 * Two PUTs racing on one URL thus never write the same blob: the one refused with already_uploaded
 * removes only its own, and the recorded file stays the one whose size and hash were recorded.
 */
const putFolder = (uploadId: string, putId: string) => `${uploadFolder(uploadId)}/${putId}`
const putBlobKey = (uploadId: string, putId: string) => `${putFolder(uploadId, putId)}/file`

export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).at(-1)!.trim()
  if (
    base.length === 0 ||
    base.length > 255 ||
    base === '.' ||
    base === '..' ||
    [...base].some((c) => c.charCodeAt(0) < 0x20)
  ) {
    throw new DomainError(
      'invalid_request',
      'filename must be a plain file name of 1 to 255 characters, such as model.glb.',
    )
  }
  return base
}

/**
 * A new upload URL, within the account's storage limits. `usage` is the account's use as the caller
 * read it (the storage read model); callers serialise an account's creations so that each sees the last.
 */
export async function createUpload(
  ctx: ServiceContext,
  accountId: string,
  filename: string,
  usage: StorageUsage,
) {
  const name = cleanFilename(filename)
  checkNewUpload(usage, ctx.config.storageLimits, ctx.now())
  const uploadId = newUploadId(ctx.random)
  const { state, position } = await handleCommand(ctx.store, uploadStream(uploadId), uploadDecider, {
    type: 'CreateUpload',
    data: {
      uploadId,
      accountId,
      filename: name,
      maxBytes: ctx.config.uploadMaxBytes,
      urlValidMs: ctx.config.uploadUrlValidMs,
      now: ctx.now(),
    },
  })
  return { uploadId, maxBytes: state.maxBytes, expiresAt: state.urlExpiresAt, position }
}

/** Receives the PUT body. The signature was checked by the caller; the state decides the rest. */
export async function receiveUpload(
  ctx: ServiceContext,
  uploadId: string,
  body: Readable,
  contentLength: number,
  storedBytesOf: (accountId: string) => Promise<number>,
) {
  const { state } = await readState(ctx.store, uploadStream(uploadId), uploadDecider)
  if (!state.exists) throw new DomainError('invalid_token')
  if (state.received) throw new DomainError('already_uploaded')
  if (ctx.now() >= state.urlExpiresAt)
    throw new DomainError('invalid_token', 'The upload URL has expired; create a new upload.')
  if (contentLength > state.maxBytes)
    throw new DomainError('too_large', `Uploads are limited to ${state.maxBytes} bytes.`)
  checkUploadBody(await storedBytesOf(state.accountId), contentLength, ctx.config.storageLimits)
  // Unique per PUT even where tests make ctx.random repeatable.
  const putId = `put_${randomUUID()}`
  const blobKey = putBlobKey(uploadId, putId)
  const discard = () => ctx.blobs.deletePrefix(putFolder(uploadId, putId))
  const stored = await ctx.blobs.put(blobKey, body, { maxBytes: Math.min(contentLength, state.maxBytes) })
  if (stored.bytes !== contentLength) {
    await discard()
    throw new DomainError(
      'invalid_request',
      `Received ${stored.bytes} bytes, but Content-Length said ${contentLength}.`,
    )
  }
  try {
    return await handleCommand(ctx.store, uploadStream(uploadId), uploadDecider, {
      type: 'ReceiveUpload',
      data: {
        bytes: stored.bytes,
        sha256: stored.sha256,
        blobKey,
        retentionMs: ctx.config.outputRetentionMs,
        now: ctx.now(),
      },
    })
  } catch (error) {
    await discard()
    throw error
  }
}
