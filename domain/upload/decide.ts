import type { Command } from '../command.ts'
import { DomainError } from '../errors.ts'
import type { UploadEvent } from './events.ts'
import type { UploadState } from './state.ts'

export type UploadCommand =
  | Command<
      'CreateUpload',
      { uploadId: string; accountId: string; filename: string; maxBytes: number; urlValidMs: number }
    >
  | Command<'ReceiveUpload', { bytes: number; sha256: string; blobKey: string; retentionMs: number }>
  | Command<'UseUpload', { jobId: string; accountId: string }>
  | Command<'ExpireUpload', Record<never, never>>

const iso = (ms: number) => new Date(ms).toISOString()

/** The received file can feed jobs until it is expired or its retention ends. */
export const isUsable = (state: UploadState, now: number) =>
  state.received !== null && !state.expired && now < state.received.retainUntil

export function decideUpload(command: UploadCommand, state: UploadState): UploadEvent[] {
  const { now } = command.data
  const at = iso(now)
  switch (command.type) {
    case 'CreateUpload': {
      if (state.exists) return []
      const { uploadId, accountId, filename, maxBytes, urlValidMs } = command.data
      return [
        {
          type: 'UploadCreated',
          data: { uploadId, accountId, filename, maxBytes, urlExpiresAt: iso(now + urlValidMs), at },
        },
      ]
    }
    case 'ReceiveUpload': {
      if (!state.exists) throw new DomainError('invalid_token')
      if (state.received) throw new DomainError('already_uploaded')
      if (now >= state.urlExpiresAt || state.expired)
        throw new DomainError('invalid_token', 'The upload URL has expired.')
      if (command.data.bytes > state.maxBytes) throw new DomainError('too_large')
      const { bytes, sha256, blobKey, retentionMs } = command.data
      return [
        {
          type: 'UploadReceived',
          data: { uploadId: state.uploadId, bytes, sha256, blobKey, retainUntil: iso(now + retentionMs), at },
        },
      ]
    }
    case 'UseUpload': {
      if (!state.exists || state.accountId !== command.data.accountId || !isUsable(state, now)) {
        throw new DomainError('upload_not_found')
      }
      if (state.usedBy.includes(command.data.jobId)) return []
      return [{ type: 'UploadUsed', data: { uploadId: state.uploadId, jobId: command.data.jobId, at } }]
    }
    case 'ExpireUpload': {
      if (!state.exists || state.expired) return []
      const endsAt = state.received ? state.received.retainUntil : state.urlExpiresAt
      return now >= endsAt ? [{ type: 'UploadExpired', data: { uploadId: state.uploadId, at } }] : []
    }
  }
}
