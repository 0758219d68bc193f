import type { Services } from '../app/services.ts'
import { DomainError } from '../domain/errors.ts'
import { type AccountDoc, accountsModel, collections } from '../projections/accounts/account-docs.ts'

export async function accountDoc(services: Services, accountId: string): Promise<AccountDoc> {
  const doc = await (await services.models.collection<AccountDoc>(accountsModel, collections.accounts)).get(
    accountId,
  )
  if (!doc) throw new DomainError('unauthorized', 'No such account.')
  return doc
}
