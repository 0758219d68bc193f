// An account's webhook endpoints, folded from the endpoint events of its stream.
import type { WebhookEndpointEvent, WebhookEventType } from './events.ts'

export interface WebhookEndpoint {
  id: string
  url: string
  events: WebhookEventType[]
  secret: string
  createdAt: string
  /** Why deliveries stopped, when they did (the endpoint kept failing). */
  disabled: { reason: string; at: string } | null
}

export interface WebhookEndpointsState {
  accountId: string | null
  /** Live endpoints in the order they were added; removed ones are gone. */
  endpoints: Map<string, WebhookEndpoint>
}

export const initialWebhookEndpoints = (): WebhookEndpointsState => ({
  accountId: null,
  endpoints: new Map(),
})

/** Folds one event; events that are not about endpoints leave the state as it is. */
export function evolveWebhookEndpoints(
  state: WebhookEndpointsState,
  event: { type: string; data: unknown },
): WebhookEndpointsState {
  const e = event as WebhookEndpointEvent
  switch (e.type) {
    case 'WebhookEndpointAdded':
      state.accountId = e.data.accountId
      state.endpoints.set(e.data.endpointId, {
        id: e.data.endpointId,
        url: e.data.url,
        events: e.data.events,
        secret: e.data.secret,
        createdAt: e.data.at,
        disabled: null,
      })
      break
    case 'WebhookSecretRotated': {
      const endpoint = state.endpoints.get(e.data.endpointId)
      if (endpoint) endpoint.secret = e.data.secret
      break
    }
    case 'WebhookEndpointRemoved':
      state.endpoints.delete(e.data.endpointId)
      break
    case 'WebhookEndpointDisabled': {
      const endpoint = state.endpoints.get(e.data.endpointId)
      if (endpoint) endpoint.disabled = { reason: e.data.reason, at: e.data.at }
      break
    }
  }
  return state
}

/** Whether an endpoint takes deliveries of this event type now. */
export const wants = (endpoint: WebhookEndpoint, type: WebhookEventType) =>
  endpoint.disabled === null && endpoint.events.includes(type)
