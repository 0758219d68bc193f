// GET /v1/me from the accounts model.
import { dayMs } from '../../domain/account/state.ts'
import type { StorageLimits } from '../../domain/upload/storage-limits.ts'
import type { ReadModels } from '../read-models.ts'
import { type StorageLimitsView, type StorageUsageView, storageView } from '../storage/queries.ts'
import { type AccountDoc, type AdmissionDoc, accountsModel, collections } from './account-docs.ts'
import { balanceOf, liveLots, nextExpiry } from './credits.ts'
import { type LimitsView, limitsFor } from './limits.ts'

export interface MeResource {
  id: string
  login: string
  email: string | null
  plan: string
  limits: LimitsView & Partial<StorageLimitsView>
  auth: 'oauth' | 'key'
  usage: {
    jobs_last_24h: number
    active_jobs: number
    jobs_last_24h_by_tool: Record<string, number>
  } & Partial<StorageUsageView>
  credits: { balance: number; next_expiry: { credits: number; at: string } | null }
}

const liveSubscription = new Set(['active', 'trialing', 'past_due'])

/** A running bundle names the plan; otherwise prepaid once anything was bought, else free. */
export function planOf(account: AccountDoc): string {
  const subscription = account.subscription
  if (subscription && liveSubscription.has(subscription.status)) return subscription.plan
  return account.purchased ? 'prepaid' : 'free'
}

export async function getMe(
  models: ReadModels,
  accountId: string,
  {
    now,
    auth,
    storageLimits,
  }: {
    now: Date
    auth: 'oauth' | 'key'
    /** When given, the account's storage caps and use are shown too (limits and usage). */
    storageLimits?: StorageLimits
  },
): Promise<MeResource | null> {
  const account = await (await models.collection<AccountDoc>(accountsModel, collections.accounts)).get(
    accountId,
  )
  if (!account) return null
  const at = now.getTime()
  // Counted by the store: an account's day can hold hundreds of admissions, one document each.
  const byTool = await (await models.collection<AdmissionDoc>(accountsModel, collections.admissions)).countBy(
    {
      where: { accountId },
      above: { field: 'at', value: at - dayMs },
      below: { field: 'at', value: at + 1 },
    },
    'tool',
  )
  const live = liveLots(account.lots, at)
  const storage = storageLimits ? await storageView(models, accountId, at, storageLimits) : null
  return {
    id: account.id,
    login: account.login,
    email: account.email,
    plan: planOf(account),
    limits: { ...limitsFor(account.purchased), ...storage?.limits },
    auth,
    usage: {
      jobs_last_24h: Object.values(byTool).reduce((sum, n) => sum + n, 0),
      active_jobs: account.activeJobs.length,
      jobs_last_24h_by_tool: byTool,
      ...storage?.usage,
    },
    credits: { balance: balanceOf(live), next_expiry: nextExpiry(live) },
  }
}
