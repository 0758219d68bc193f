// Per-account storage caps: how many upload URLs may wait for their PUT at once, and how many bytes
// an account may keep (received uploads, and each job's input copy and outputs until they expire).
// One account must not fill the disk that the event store and every other account share.
import { DomainError } from '../errors.ts'

export interface StorageLimits {
  pendingUploads: number
  storedBytes: number
}

export interface StorageUsage {
  /** Upload URLs created and not yet used for a PUT, and not expired. */
  pendingUploads: number
  /** When the oldest of them expires (epoch ms); null when there is none. */
  nextPendingExpiry: number | null
  storedBytes: number
}

/** A new upload URL: refused while too many wait for their file, or while the account is full. */
export function checkNewUpload(usage: StorageUsage, limits: StorageLimits, now: number): void {
  if (usage.pendingUploads >= limits.pendingUploads) {
    const retryAfterSeconds =
      usage.nextPendingExpiry === null ? 60 : Math.max(1, Math.ceil((usage.nextPendingExpiry - now) / 1000))
    throw new DomainError(
      'quota_exceeded',
      `This account has ${usage.pendingUploads} upload URLs waiting for their file (at most ${limits.pendingUploads}); PUT those files, or wait for the URLs to expire.`,
      { retryAfterSeconds, hint: 'PUT the files of the uploads already created, or wait for Retry-After.' },
    )
  }
  if (usage.storedBytes >= limits.storedBytes) throw storageFull(usage.storedBytes, 0, limits)
}

/** A PUT of `declaredBytes`: refused when the account would keep more than its cap. */
export function checkUploadBody(storedBytes: number, declaredBytes: number, limits: StorageLimits): void {
  if (storedBytes + declaredBytes > limits.storedBytes) throw storageFull(storedBytes, declaredBytes, limits)
}

const storageFull = (storedBytes: number, declaredBytes: number, limits: StorageLimits) =>
  new DomainError(
    'too_large',
    `This account keeps ${storedBytes} bytes of uploads and job files${declaredBytes > 0 ? `; ${declaredBytes} more` : ''} would pass its limit of ${limits.storedBytes} bytes.`,
    { hint: 'Delete finished jobs you no longer need, or wait for files to expire.' },
  )
