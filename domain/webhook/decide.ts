// Commands on an account's webhook endpoints. Ids, secrets and time come in with the command.
import { DomainError } from '../errors.ts'
import type { WebhookEndpointEvent, WebhookEventType } from './events.ts'
import { evolveWebhookEndpoints, initialWebhookEndpoints, type WebhookEndpointsState } from './state.ts'

export const maxWebhookEndpoints = 10

export type WebhookEndpointCommand =
  | {
      type: 'AddWebhookEndpoint'
      data: {
        accountId: string
        endpointId: string
        url: string
        events: WebhookEventType[]
        secret: string
        now: number
      }
    }
  | {
      type: 'RotateWebhookSecret'
      data: { accountId: string; endpointId: string; secret: string; now: number }
    }
  | { type: 'RemoveWebhookEndpoint'; data: { accountId: string; endpointId: string; now: number } }
  | {
      type: 'DisableWebhookEndpoint'
      data: { accountId: string; endpointId: string; reason: string; now: number }
    }

const iso = (ms: number) => new Date(ms).toISOString()

function existing(state: WebhookEndpointsState, endpointId: string) {
  const endpoint = state.endpoints.get(endpointId)
  if (!endpoint) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`)
  return endpoint
}

export function decideWebhookEndpoints(
  command: WebhookEndpointCommand,
  state: WebhookEndpointsState,
): WebhookEndpointEvent[] {
  const { accountId, endpointId } = command.data
  const at = iso(command.data.now)
  switch (command.type) {
    case 'AddWebhookEndpoint': {
      if (state.endpoints.size >= maxWebhookEndpoints)
        throw new DomainError(
          'conflict',
          `An account has at most ${maxWebhookEndpoints} webhook endpoints.`,
          {
            hint: 'Delete an endpoint you no longer use.',
          },
        )
      const { url, events, secret } = command.data
      return [{ type: 'WebhookEndpointAdded', data: { accountId, endpointId, url, events, secret, at } }]
    }
    case 'RotateWebhookSecret':
      existing(state, endpointId)
      return [
        { type: 'WebhookSecretRotated', data: { accountId, endpointId, secret: command.data.secret, at } },
      ]
    case 'RemoveWebhookEndpoint':
      existing(state, endpointId)
      return [{ type: 'WebhookEndpointRemoved', data: { accountId, endpointId, at } }]
    case 'DisableWebhookEndpoint': {
      // Disabling twice, or a removed endpoint, changes nothing: the dispatcher may race itself.
      const endpoint = state.endpoints.get(endpointId)
      if (!endpoint || endpoint.disabled) return []
      return [
        { type: 'WebhookEndpointDisabled', data: { accountId, endpointId, reason: command.data.reason, at } },
      ]
    }
  }
}

export const webhookEndpointsDecider = {
  initialState: initialWebhookEndpoints,
  evolve: evolveWebhookEndpoints,
  decide: decideWebhookEndpoints,
}
