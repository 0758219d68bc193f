// GET /v1/billing from the accounts model.
import type { LedgerKind, LotKind } from '../../domain/account/events.ts'
import { dayMs } from '../../domain/account/state.ts'
import type { ReadModels } from '../read-models.ts'
import {
  type AccountDoc,
  accountsModel,
  collections,
  type JobSpendDoc,
  type LedgerEntryDoc,
} from './account-docs.ts'
import { balanceOf, liveLots } from './credits.ts'

export interface BillingResource {
  balance: number
  lots: { kind: LotKind; credits: number; remaining: number; expires_at: string; created_at: string }[]
  spent_last_30_days_by_tool: Record<string, number>
  entries: {
    kind: LedgerKind
    amount: number
    job_id: string | null
    tool: string | null
    created_at: string
  }[]
  frozen: boolean
  portal: boolean
  subscription: { plan: string; status: string; renews_at: string | null; ends_at: string | null } | null
}

export const billingEntryCount = 50
const spendWindowMs = 30 * dayMs
const iso = (ms: number) => new Date(ms).toISOString()

export async function getBilling(
  models: ReadModels,
  accountId: string,
  { now }: { now: Date },
): Promise<BillingResource | null> {
  const account = await (await models.collection<AccountDoc>(accountsModel, collections.accounts)).get(
    accountId,
  )
  if (!account) return null
  const at = now.getTime()
  const spendCollection = await models.collection<JobSpendDoc>(accountsModel, collections.spend)
  const ledgerCollection = await models.collection<LedgerEntryDoc>(accountsModel, collections.ledger)
  const spends = await spendCollection.find({
    where: { accountId },
    above: { field: 'chargedAt', value: at - spendWindowMs },
  })
  const newest = { field: 'position', direction: 'desc' } as const
  const entries = await ledgerCollection.find({
    where: { accountId },
    orderBy: newest,
    limit: billingEntryCount,
  })
  const spent: Record<string, number> = {}
  for (const spend of spends) {
    // A charge is counted at the time it was made, less what its job got back.
    if (spend.chargedAt <= at) spent[spend.tool] = (spent[spend.tool] ?? 0) + spend.charged - spend.refunded
  }
  const live = liveLots(account.lots, at)
  const subscription = account.subscription
  return {
    balance: balanceOf(live),
    lots: live
      .filter((lot) => lot.remaining > 0)
      .map((lot) => ({
        kind: lot.kind,
        credits: lot.credits,
        remaining: lot.remaining,
        expires_at: iso(lot.expiresAt),
        created_at: iso(lot.createdAt),
      })),
    spent_last_30_days_by_tool: spent,
    entries: entries.map((entry) => ({
      kind: entry.kind,
      amount: entry.amount,
      job_id: entry.jobId,
      tool: entry.tool,
      created_at: iso(entry.createdAt),
    })),
    frozen: account.openDisputes.length > 0,
    portal: account.purchased,
    subscription: subscription && {
      plan: subscription.plan,
      status: subscription.status,
      renews_at: subscription.renewsAt,
      ends_at: subscription.endsAt,
    },
  }
}
