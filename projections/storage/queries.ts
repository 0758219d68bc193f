// An account's storage use at a moment, from the storage model.
import type { StorageLimits, StorageUsage } from '../../domain/upload/storage-limits.ts'
import type { ReadModels } from '../read-models.ts'
import { type StoredFilesDoc, storageModel, storedFilesCollection } from './projector.ts'

export const storedFiles = (models: ReadModels) =>
  models.collection<StoredFilesDoc>(storageModel, storedFilesCollection)

/** The earliest moment after `now` at which one of the account's kept files stops counting. */
async function nextKeptExpiry(models: ReadModels, accountId: string, now: number): Promise<number> {
  const [first] = await (await storedFiles(models)).find({
    where: { accountId },
    above: { field: 'keptUntil', value: now },
    orderBy: { field: 'keptUntil', direction: 'asc' },
    limit: 1,
  })
  return first?.keptUntil ?? Number.POSITIVE_INFINITY
}

/**
 * Bytes the account's kept files hold at `now`: what job creation and uploads check against the cap.
 * Summed by the store: an account keeps a document per job and upload for as long as it counts.
 */
export async function storedBytes(models: ReadModels, accountId: string, now: number): Promise<number> {
  const files = await storedFiles(models)
  return (await files.sum({ where: { accountId }, above: { field: 'keptUntil', value: now } }, 'bytes')).sum
}

export async function storageUsage(
  models: ReadModels,
  accountId: string,
  now: number,
): Promise<StorageUsage> {
  const files = await storedFiles(models)
  // A pending upload is kept at least as long as it is pending (the projector sets both together),
  // so the pending ones are found by their own deadline.
  const pending = (
    await files.find({ where: { accountId }, above: { field: 'pendingUntil', value: now } })
  ).map((doc) => doc.pendingUntil)
  return {
    pendingUploads: pending.length,
    nextPendingExpiry: pending.length > 0 ? Math.min(...pending) : null,
    storedBytes: await storedBytes(models, accountId, now),
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

/**
 * The caps and the use as Me shows them, and the first moment after `now` when the use changes by
 * time alone: a kept file or a pending upload running out.
 */
export async function storageView(
  models: ReadModels,
  accountId: string,
  now: number,
  limits: StorageLimits,
): Promise<{ limits: StorageLimitsView; usage: StorageUsageView; changesAt: number }> {
  const usage = await storageUsage(models, accountId, now)
  return {
    limits: { pending_uploads: limits.pendingUploads, stored_bytes: limits.storedBytes },
    usage: { pending_uploads: usage.pendingUploads, stored_bytes: usage.storedBytes },
    changesAt: Math.min(
      usage.nextPendingExpiry ?? Number.POSITIVE_INFINITY,
      await nextKeptExpiry(models, accountId, now),
    ),
  }
}
