import type { UploadEvent } from './events.ts'

export interface UploadState {
  exists: boolean
  uploadId: string
  accountId: string
  filename: string
  maxBytes: number
  urlExpiresAt: number
  received: { bytes: number; sha256: string; blobKey: string; retainUntil: number } | null
  usedBy: string[]
  expired: boolean
}

export const initialUploadState = (): UploadState => ({
  exists: false,
  uploadId: '',
  accountId: '',
  filename: '',
  maxBytes: 0,
  urlExpiresAt: 0,
  received: null,
  usedBy: [],
  expired: false,
})

export function evolveUpload(state: UploadState, event: UploadEvent): UploadState {
  switch (event.type) {
    case 'UploadCreated': {
      const d = event.data
      return {
        ...state,
        exists: true,
        uploadId: d.uploadId,
        accountId: d.accountId,
        filename: d.filename,
        maxBytes: d.maxBytes,
        urlExpiresAt: Date.parse(d.urlExpiresAt),
      }
    }
    case 'UploadReceived': {
      const { bytes, sha256, blobKey, retainUntil } = event.data
      return { ...state, received: { bytes, sha256, blobKey, retainUntil: Date.parse(retainUntil) } }
    }
    case 'UploadUsed':
      return { ...state, usedBy: [...state.usedBy, event.data.jobId] }
    case 'UploadExpired':
      return { ...state, expired: true }
  }
}
