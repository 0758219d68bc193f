// For the credits.low webhook: the balance, and the price of the account's most used tool (the tool
// charged most often in the last 30 days, at what its latest job cost). The balance is "low" once it
// cannot pay for one more of those.
import { dayMs } from '../../domain/account/state.ts'
import type { ReadModels } from '../read-models.ts'
import { type AccountDoc, accountsModel, collections, type JobSpendDoc } from './account-docs.ts'
import { balanceOf, liveLots } from './credits.ts'

export interface CreditsOutlook {
  balance: number
  mostUsedTool: string
  price: number
}

const windowMs = 30 * dayMs

export async function creditsOutlook(
  models: ReadModels,
  accountId: string,
  now: number,
): Promise<CreditsOutlook | null> {
  const account = await (await models.collection<AccountDoc>(accountsModel, collections.accounts)).get(
    accountId,
  )
  if (!account) return null
  const spends = await (await models.collection<JobSpendDoc>(accountsModel, collections.spend)).find({
    where: { accountId },
    above: { field: 'chargedAt', value: now - windowMs },
  })
  const byTool = new Map<string, { jobs: number; latest: JobSpendDoc }>()
  for (const spend of spends) {
    if (spend.charged <= 0) continue
    const seen = byTool.get(spend.tool)
    if (!seen) byTool.set(spend.tool, { jobs: 1, latest: spend })
    else {
      seen.jobs += 1
      if (spend.chargedAt >= seen.latest.chargedAt) seen.latest = spend
    }
  }
  const [mostUsed] = [...byTool.entries()].sort(([, a], [, b]) => b.jobs - a.jobs)
  if (!mostUsed) return null
  return {
    balance: balanceOf(liveLots(account.lots, now)),
    mostUsedTool: mostUsed[0],
    price: mostUsed[1].latest.charged,
  }
}
