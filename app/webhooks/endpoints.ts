// An account's webhook endpoints: added, listed, rotated and removed through the account stream. The
// URL is checked when it is registered (public https, no literal private address); the dispatcher
// checks it again, with DNS, at every delivery.
import { randomBytes } from 'node:crypto'
import { accountStream } from '../../domain/account/events.ts'
import { randomString } from '../../domain/ids.ts'
import { webhookEndpointsDecider } from '../../domain/webhook/decide.ts'
import type { WebhookEventType } from '../../domain/webhook/events.ts'
import {
  evolveWebhookEndpoints,
  initialWebhookEndpoints,
  type WebhookEndpoint,
} from '../../domain/webhook/state.ts'
import type { ServiceContext } from '../context.ts'
import { handleCommand } from '../handle-command.ts'
import { parseAllowedUrl, type UrlPolicy } from '../security/allowed-url.ts'

/** The URL rules of this deployment: public https only, unless a test trusts its loopback receiver. */
export function webhookUrlPolicy(ctx: ServiceContext): UrlPolicy {
  if (ctx.config.webhooks.loopbackCa === null) return {}
  return { allowAddresses: new Set(['127.0.0.1']), allowedPorts: everyPort }
}

const everyPort = Array.from({ length: 65_535 }, (_, index) => index + 1)

/** Standard Webhooks secrets: `whsec_` and the base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`

const newEndpointId = (ctx: ServiceContext) =>
  `we_${randomString(ctx.random, '0123456789abcdefghijklmnopqrstuvwxyz', 20)}`

export async function addWebhookEndpoint(
  ctx: ServiceContext,
  accountId: string,
  request: { url: string; events: WebhookEventType[] },
) {
  const url = parseAllowedUrl(request.url, webhookUrlPolicy(ctx)).url.href
  const endpointId = newEndpointId(ctx)
  const secret = newWebhookSecret()
  const outcome = await handleCommand(ctx.store, accountStream(accountId), webhookEndpointsDecider, {
    type: 'AddWebhookEndpoint',
    data: { accountId, endpointId, url, events: [...new Set(request.events)], secret, now: ctx.now() },
  })
  return { endpoint: outcome.state.endpoints.get(endpointId)!, position: outcome.position }
}

export async function rotateWebhookSecret(ctx: ServiceContext, accountId: string, endpointId: string) {
  const outcome = await handleCommand(ctx.store, accountStream(accountId), webhookEndpointsDecider, {
    type: 'RotateWebhookSecret',
    data: { accountId, endpointId, secret: newWebhookSecret(), now: ctx.now() },
  })
  return outcome.state.endpoints.get(endpointId)!
}

export async function removeWebhookEndpoint(ctx: ServiceContext, accountId: string, endpointId: string) {
  await handleCommand(ctx.store, accountStream(accountId), webhookEndpointsDecider, {
    type: 'RemoveWebhookEndpoint',
    data: { accountId, endpointId, now: ctx.now() },
  })
}

export async function disableWebhookEndpoint(
  ctx: ServiceContext,
  accountId: string,
  endpointId: string,
  reason: string,
) {
  await handleCommand(ctx.store, accountStream(accountId), webhookEndpointsDecider, {
    type: 'DisableWebhookEndpoint',
    data: { accountId, endpointId, reason, now: ctx.now() },
  })
}

/** The account's endpoints as its stream says now (endpoint changes are rare; the fold is cheap enough). */
export async function webhookEndpoints(ctx: ServiceContext, accountId: string): Promise<WebhookEndpoint[]> {
  let state = initialWebhookEndpoints()
  for (const event of await ctx.store.readStream(accountStream(accountId)))
    state = evolveWebhookEndpoints(state, event)
  return [...state.endpoints.values()]
}
