// An account's storage use at a moment, from the storage model.
import type { StorageLimits, StorageUsage } from '../../domain/upload/storage-limits.ts'
import type { ReadModels } from '../read-models.ts'
import { type StoredFilesDoc, storageModel, storedFilesCollection } from './projector.ts'

export async function storageUsage(
  models: ReadModels,
  accountId: string,
  now: number,
): Promise<StorageUsage> {
  const docs = await (await models.collection<StoredFilesDoc>(storageModel, storedFilesCollection)).find({
    where: { accountId },
    above: { field: 'keptUntil', value: now },
  })
  const pending = docs.filter((doc) => doc.pendingUntil > now).map((doc) => doc.pendingUntil)
  return {
    pendingUploads: pending.length,
    nextPendingExpiry: pending.length > 0 ? Math.min(...pending) : null,
    storedBytes: docs.reduce((sum, doc) => sum + doc.bytes, 0),
  }
}

export interface StorageLimitsView {
  pending_uploads: number
  stored_bytes: number
}

export interface StorageUsageView {
  pending_uploads: number
  stored_bytes: number
}

/** The caps and the use as Me shows them. */
export async function storageView(
  models: ReadModels,
  accountId: string,
  now: number,
  limits: StorageLimits,
): Promise<{ limits: StorageLimitsView; usage: StorageUsageView }> {
  const usage = await storageUsage(models, accountId, now)
  return {
    limits: { pending_uploads: limits.pendingUploads, stored_bytes: limits.storedBytes },
    usage: { pending_uploads: usage.pendingUploads, stored_bytes: usage.storedBytes },
  }
}
