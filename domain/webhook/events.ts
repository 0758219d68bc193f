// Webhook endpoints belong to an account, so their changes are events on the account stream
// (`account-{id}`): the account decider ignores them, and the webhook decider folds only them.

/** What an endpoint can subscribe to. */
export const webhookEventTypes = [
  'job.succeeded',
  'job.failed',
  'job.canceled',
  'job.expired',
  'credits.low',
] as const
export type WebhookEventType = (typeof webhookEventTypes)[number]

export type WebhookEndpointEvent =
  | {
      type: 'WebhookEndpointAdded'
      data: {
        accountId: string
        endpointId: string
        url: string
        events: WebhookEventType[]
        /** The signing secret (`whsec_` + base64): the dispatcher signs with it. */
        secret: string
        at: string
      }
    }
  | {
      type: 'WebhookSecretRotated'
      data: { accountId: string; endpointId: string; secret: string; at: string }
    }
  | { type: 'WebhookEndpointRemoved'; data: { accountId: string; endpointId: string; at: string } }
  | {
      type: 'WebhookEndpointDisabled'
      data: { accountId: string; endpointId: string; reason: string; at: string }
    }

export const webhookEndpointEventTypes: ReadonlySet<string> = new Set([
  'WebhookEndpointAdded',
  'WebhookSecretRotated',
  'WebhookEndpointRemoved',
  'WebhookEndpointDisabled',
])

export const isWebhookEndpointEvent = (event: { type: string }): event is WebhookEndpointEvent =>
  webhookEndpointEventTypes.has(event.type)
