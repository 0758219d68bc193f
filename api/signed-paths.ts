// The service's signed URLs: where uploads are PUT and where job outputs are downloaded.

import { signPath } from '../app/security/signed-url.ts'
import type { Services } from '../app/services.ts'

export const uploadPath = (uploadId: string) => `/v1/uploads/${uploadId}/file`
export const downloadPath = (jobId: string, name: string) =>
  `/v1/downloads/${jobId}/${name.split('/').map(encodeURIComponent).join('/')}`

export function signedUploadUrl(services: Services, uploadId: string, expiresAtMs: number): string {
  const { publicUrl, signingSecret } = services.ctx.config
  const path = uploadPath(uploadId)
  return `${publicUrl}${path}?${signPath(signingSecret, 'PUT', path, expiresAtMs)}`
}

export function signFileUrl(services: Services) {
  const { publicUrl, signingSecret } = services.ctx.config
  return (jobId: string, name: string, expiresAt: Date): string => {
    const path = downloadPath(jobId, name)
    return `${publicUrl}${path}?${signPath(signingSecret, 'GET', path, expiresAt.getTime())}`
  }
}

export const renderOptions = (services: Services) => ({
  now: new Date(services.ctx.now()),
  signFileUrl: signFileUrl(services),
  retentionMs: services.ctx.config.outputRetentionMs,
})
