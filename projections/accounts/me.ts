// GET /v1/me from the accounts model.
import { dayMs } from '../../domain/account/state.ts'
import type { StorageLimits } from '../../domain/upload/storage-limits.ts'
import { deepFreeze } from '../frozen.ts'
import type { ReadModels } from '../read-models.ts'
import type { DocumentCollection } from '../read-store.ts'
import {
  type StorageLimitsView,
  type StorageUsageView,
  storageView,
  storedFiles,
} from '../storage/queries.ts'
import {
  type AccountDoc,
  type AdmissionDoc,
  accountsModel,
  activeJobsOf,
  collections,
} from './account-docs.ts'
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

interface MeOptions {
  now: Date
  auth: 'oauth' | 'key'
  /** When given, the account's storage caps and use are shown too (limits and usage). */
  storageLimits?: StorageLimits
}

/** A Me answer kept until its models change or time alone would change it. */
interface KeptMe {
  stamp: string
  storageLimits: StorageLimits | undefined
  from: number
  until: number
  me: Readonly<MeResource>
}

/** Answers kept per read models and account: clients ask for Me far more often than it changes. */
const keptAnswers = new WeakMap<ReadModels, Map<string, KeptMe>>()
const maxKeptAnswers = 10_000

/**
 * The account's Me, frozen (projections/frozen.ts). An answer is kept while the account's documents
 * in the collections it was read from are unchanged (their change stamps, taken before reading) and
 * until the first moment time alone changes it: an admission leaving the last 24 hours, a lot or a
 * stored file expiring.
 */
export async function getMe(
  models: ReadModels,
  accountId: string,
  options: MeOptions,
): Promise<Readonly<MeResource> | null> {
  const accounts = await models.collection<AccountDoc>(accountsModel, collections.accounts)
  const admissions = await models.collection<AdmissionDoc>(accountsModel, collections.admissions)
  const owned = options.storageLimits ? [admissions, await storedFiles(models)] : [admissions]
  // Only this account's documents: another account's jobs do not make this answer stale.
  const stamps = [
    accounts.changeStamp({ field: 'id', value: accountId }),
    ...owned.map((collection) => collection.changeStamp({ field: 'accountId', value: accountId })),
  ]
  const stamp = stamps.includes(null) ? null : stamps.join(' ')
  const at = options.now.getTime()
  let kept = keptAnswers.get(models)
  if (!kept) {
    kept = new Map()
    keptAnswers.set(models, kept)
  }
  const key = `${options.auth} ${accountId}`
  const hit = kept.get(key)
  if (
    hit &&
    hit.stamp === stamp &&
    hit.storageLimits === options.storageLimits &&
    at >= hit.from &&
    at < hit.until
  )
    return hit.me
  const answer = await readMe(models, accounts, admissions, accountId, options)
  if (!answer) return null
  const me = deepFreeze(answer.me)
  if (stamp !== null) {
    if (kept.size >= maxKeptAnswers) kept.clear()
    kept.set(key, { stamp, storageLimits: options.storageLimits, from: at, until: answer.until, me })
  }
  return me
}

/** Me at `now`, and the first moment after it when time alone changes it. */
async function readMe(
  models: ReadModels,
  accounts: DocumentCollection<AccountDoc>,
  admissions: DocumentCollection<AdmissionDoc>,
  accountId: string,
  { now, auth, storageLimits }: MeOptions,
): Promise<{ me: MeResource; until: number } | null> {
  const account = await accounts.get(accountId)
  if (!account) return null
  const at = now.getTime()
  const inLastDay = {
    where: { accountId },
    above: { field: 'at', value: at - dayMs },
    below: { field: 'at', value: at + 1 },
  }
  // Counted by the store: an account's day can hold hundreds of admissions, one document each.
  const byTool = await admissions.countBy(inLastDay, 'tool')
  const [oldest] = await admissions.find({
    ...inLastDay,
    orderBy: { field: 'at', direction: 'asc' },
    limit: 1,
  })
  const live = liveLots(account.lots, at)
  const storage = storageLimits ? await storageView(models, accountId, at, storageLimits) : null
  const until = Math.min(
    oldest ? oldest.at + dayMs : Number.POSITIVE_INFINITY,
    ...live.map((lot) => lot.expiresAt),
    storage?.changesAt ?? Number.POSITIVE_INFINITY,
  )
  const me: MeResource = {
    id: account.id,
    login: account.login,
    email: account.email,
    plan: planOf(account),
    limits: { ...limitsFor(account.purchased), ...storage?.limits },
    auth,
    usage: {
      jobs_last_24h: Object.values(byTool).reduce((sum, n) => sum + n, 0),
      active_jobs: activeJobsOf(account),
      jobs_last_24h_by_tool: byTool,
      ...storage?.usage,
    },
    credits: { balance: balanceOf(live), next_expiry: nextExpiry(live) },
  }
  return { me, until }
}
