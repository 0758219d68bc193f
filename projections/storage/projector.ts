// upload-* and job-* streams → the storage model: one document per upload and per job saying whose
// bytes it holds and until when, so an account's pending uploads and stored bytes are one query.
import type { JobEvent } from '../../domain/job/events.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import type { UploadEvent } from '../../domain/upload/events.ts'
import type { Content, Projector } from '../projector.ts'
import type { Doc } from '../read-store.ts'

export const storageModel = 'storage'
export const storedFilesCollection = 'stored_files'

/** Until a job's outputs get an expiry, its input copy is kept: as long as the job lives. */
export const keptWhileRunning = Number.MAX_SAFE_INTEGER

export interface StoredFilesDoc extends Doc {
  accountId: string
  kind: 'upload' | 'job'
  /** An upload URL waiting for its PUT, until this time (epoch ms); 0 once received or for jobs. */
  pendingUntil: number
  bytes: number
  /** Epoch ms after which the files no longer count (they expire or were deleted: 0). */
  keptUntil: number
}

const ms = (iso: string) => Date.parse(iso)
type Change = (current: StoredFilesDoc | undefined) => Content<StoredFilesDoc> | undefined

function uploadChange(event: UploadEvent): Change {
  switch (event.type) {
    case 'UploadCreated': {
      const until = ms(event.data.urlExpiresAt)
      return (current) =>
        current
          ? undefined
          : {
              accountId: event.data.accountId,
              kind: 'upload',
              pendingUntil: until,
              bytes: 0,
              keptUntil: until,
            }
    }
    case 'UploadReceived':
      return (current) =>
        current && {
          ...current,
          pendingUntil: 0,
          bytes: event.data.bytes,
          keptUntil: ms(event.data.retainUntil),
        }
    case 'UploadExpired':
      return (current) => current && { ...current, pendingUntil: 0, bytes: 0, keptUntil: 0 }
    default:
      return () => undefined
  }
}

function jobChange(event: JobEvent): Change {
  switch (event.type) {
    case 'JobCreated':
      return (current) =>
        current
          ? undefined
          : {
              accountId: event.data.accountId,
              kind: 'job',
              pendingUntil: 0,
              bytes: event.data.input.blobKey ? event.data.input.bytes : 0,
              keptUntil: keptWhileRunning,
            }
    case 'JobSucceeded': {
      const outputs = event.data.result.files.reduce((sum, file) => sum + file.bytes, 0)
      const until = ms(event.data.outputsExpireAt)
      return (current) => current && { ...current, bytes: current.bytes + outputs, keptUntil: until }
    }
    case 'JobFailed':
    case 'JobCanceled': {
      const until = ms(event.data.outputsExpireAt)
      return (current) => current && { ...current, keptUntil: until }
    }
    case 'JobExpired':
    case 'JobDeleted':
      return (current) => current && { ...current, bytes: 0, keptUntil: 0 }
    default:
      return () => undefined
  }
}

function changeFor(event: RecordedEvent): { id: string; change: Change } | null {
  if (event.streamId.startsWith('upload-')) {
    const upload = { type: event.type, data: event.data } as UploadEvent
    return { id: upload.data.uploadId, change: uploadChange(upload) }
  }
  if (event.streamId.startsWith('job-')) {
    const job = { type: event.type, data: event.data } as JobEvent
    return { id: job.data.jobId, change: jobChange(job) }
  }
  return null
}

export const storageProjector: Projector = {
  model: storageModel,
  // Covering what storage use asks (queries.ts): bytes summed over the kept files, pending uploads.
  collections: {
    [storedFilesCollection]: [
      ['accountId', 'keptUntil', 'bytes'],
      ['accountId', 'pendingUntil'],
    ],
  },
  touches(event) {
    const found = changeFor(event)
    if (!found) return []
    // A job's or an upload's first event makes its entry.
    const created = event.type === 'JobCreated' || event.type === 'UploadCreated'
    return [{ collection: storedFilesCollection, id: found.id, created }]
  },
  apply(event, workspace) {
    const found = changeFor(event)
    if (found) workspace.update<StoredFilesDoc>(storedFilesCollection, found.id, event, found.change)
  },
}
