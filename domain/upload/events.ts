// An upload: created with a signed PUT URL valid one hour → received once → used by jobs → expired.

export type UploadEvent =
  | {
      type: 'UploadCreated'
      data: {
        uploadId: string
        accountId: string
        filename: string
        maxBytes: number
        urlExpiresAt: string
        at: string
      }
    }
  | {
      type: 'UploadReceived'
      data: {
        uploadId: string
        bytes: number
        sha256: string
        blobKey: string
        retainUntil: string
        at: string
      }
    }
  | { type: 'UploadUsed'; data: { uploadId: string; jobId: string; at: string } }
  | { type: 'UploadExpired'; data: { uploadId: string; at: string } }

export const uploadStream = (uploadId: string) => `upload-${uploadId}`
