// Operator commands against the same store as the service:
//   npm run admin -- create-account --email E [--login L] [--credits N] [--json]
//   npm run admin -- grant --account A --credits N [--days D]
//   npm run admin -- disable --account A | enable --account A
//   npm run admin -- console-token --account A          (a new console token, valid CONSOLE_TOKEN_DAYS)
//   npm run admin -- revoke-console-token --account A --token ID
//   npm run admin -- invite [--count N]                 (single-use sign-up codes, valid INVITATION_DAYS)
import { parseArgs } from 'node:util'
import {
  createApiKey,
  grantCredits,
  issueConsoleToken,
  openAccount,
  revokeConsoleToken,
  setAccountEnabled,
} from '../app/accounts.ts'
import { loadConfig } from '../app/config.ts'
import { createInvitation } from '../app/identity/invitations.ts'
import { startServices } from '../app/services.ts'
import { isDomainError } from '../domain/errors.ts'

const [command, ...rest] = process.argv.slice(2)
const { values } = parseArgs({
  args: rest,
  options: {
    email: { type: 'string' },
    login: { type: 'string' },
    credits: { type: 'string' },
    account: { type: 'string' },
    days: { type: 'string' },
    token: { type: 'string' },
    count: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
})

const usage = `usage: npm run admin -- <create-account --email E [--credits N] | grant --account A --credits N [--days D] | disable --account A | enable --account A | console-token --account A | revoke-console-token --account A --token ID | invite [--count N]> [--json]`
const services = await startServices(loadConfig(), { consumeJobs: false, project: false })
const print = (human: string, data: unknown) => console.log(values.json ? JSON.stringify(data) : human)

try {
  switch (command) {
    case 'create-account': {
      if (!values.email) throw new Error('--email is required')
      const credits = values.credits === undefined ? undefined : Number(values.credits)
      const { accountId } = await openAccount(services.ctx, {
        login: values.login ?? values.email.split('@')[0]!,
        email: values.email,
        credits,
      })
      const key = await createApiKey(services.ctx, accountId, 'default')
      const consoleToken = await issueConsoleToken(services.ctx, accountId)
      print(`account ${accountId}\napi key ${key.key}\nconsole token ${consoleToken.token}`, {
        account_id: accountId,
        api_key: key.key,
        console_token: consoleToken.token,
      })
      break
    }
    case 'grant': {
      if (!values.account || !values.credits) throw new Error('--account and --credits are required')
      const days = Number(values.days ?? 365)
      const { events } = await grantCredits(services.ctx, values.account, {
        credits: Number(values.credits),
        validMs: days * 86_400_000,
      })
      print(`granted ${values.credits} credits to ${values.account}`, {
        account_id: values.account,
        granted: Number(values.credits),
        events: events.length,
      })
      break
    }
    case 'disable':
    case 'enable': {
      if (!values.account) throw new Error('--account is required')
      await setAccountEnabled(services.ctx, values.account, command === 'enable')
      print(`${command}d ${values.account}`, {
        account_id: values.account,
        status: command === 'enable' ? 'enabled' : 'disabled',
      })
      break
    }
    case 'console-token': {
      if (!values.account) throw new Error('--account is required')
      const { tokenId, token } = await issueConsoleToken(services.ctx, values.account)
      print(`console token ${token} (id ${tokenId})`, {
        account_id: values.account,
        id: tokenId,
        console_token: token,
      })
      break
    }
    case 'revoke-console-token': {
      if (!values.account || !values.token) throw new Error('--account and --token are required')
      await revokeConsoleToken(services.ctx, values.account, values.token)
      print(`revoked console token ${values.token}`, {
        account_id: values.account,
        id: values.token,
        status: 'revoked',
      })
      break
    }
    case 'invite': {
      const count = Number(values.count ?? 1)
      if (!Number.isInteger(count) || count < 1 || count > 100) throw new Error('--count is 1 to 100')
      const invitations = []
      for (let i = 0; i < count; i++)
        invitations.push(await createInvitation(services.ctx, 'operator (admin CLI)'))
      print(
        invitations.map((i) => `invitation ${i.code} (valid until ${i.expiresAt})`).join('\n'),
        invitations.map((i) => ({ id: i.invitationId, code: i.code, expires_at: i.expiresAt })),
      )
      break
    }
    default:
      console.error(usage)
      process.exitCode = 2
  }
} catch (error) {
  console.error(isDomainError(error) ? `${error.code}: ${error.message}` : (error as Error).message)
  process.exitCode = 1
} finally {
  await services.close()
}
