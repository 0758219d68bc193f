// The storage caps at the API's edge: usage comes from the storage read model, and an account's
// upload creations run one at a time in this process, each waiting until the read model shows it,
// so that the next one counts it. (Processes serving one account side by side may each admit one more.)

import type { Services } from '../app/services.ts'
import { createUpload } from '../app/uploads.ts'
import { storageUsage, storedBytes } from '../projections/storage/queries.ts'

const queues = new Map<string, Promise<unknown>>()

function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve()
  const next = previous.catch(() => {}).then(work)
  queues.set(key, next)
  void next
    .catch(() => {})
    .finally(() => {
      if (queues.get(key) === next) queues.delete(key)
    })
  return next
}

export function createUploadWithinLimits(services: Services, accountId: string, filename: string) {
  return oneAtATime(accountId, async () => {
    const usage = await storageUsage(services.models, accountId, services.ctx.now())
    const created = await createUpload(services.ctx, accountId, filename, usage)
    await services.waitForPosition(created.position)
    return created
  })
}

export const storedBytesOf = (services: Services) => (accountId: string) =>
  storedBytes(services.models, accountId, services.ctx.now())
