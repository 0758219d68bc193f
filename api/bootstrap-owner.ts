// On a first start with an empty store: an owner account with an API key and a console token,
// printed once so the operator can use them.
import { createApiKey, issueConsoleToken, openAccount } from '../app/accounts.ts'
import type { Services } from '../app/services.ts'

export async function bootstrapOwner(
  services: Services,
): Promise<{ accountId: string; apiKey: string; consoleToken: string } | null> {
  if ((await services.ctx.store.headPosition()) > 0) return null
  const { accountId } = await openAccount(services.ctx, { login: 'owner', email: null, credits: 1000 })
  const key = await createApiKey(services.ctx, accountId, 'owner')
  const console = await issueConsoleToken(services.ctx, accountId)
  await services.waitForPosition(Math.max(key.position, console.position))
  return { accountId, apiKey: key.key, consoleToken: console.token }
}
