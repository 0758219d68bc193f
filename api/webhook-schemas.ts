// Response and request schemas of the webhook endpoint resource (REST and OpenAPI).
import { z } from 'zod'
import type { DeliveryDoc } from '../app/webhooks/deliveries.ts'
import { webhookEventTypes } from '../domain/webhook/events.ts'
import type { WebhookEndpoint } from '../domain/webhook/state.ts'

const isoDateTime = z.string().meta({ format: 'date-time' })

export const webhookEndpointIdParam = z.object({ id: z.string().regex(/^we_[0-9a-z]{20}$/) })

export const createWebhookEndpointBody = z
  .strictObject({
    url: z.string().min(1).max(2048).describe('Where deliveries are POSTed: a public https URL.'),
    events: z
      .array(z.enum(webhookEventTypes))
      .min(1)
      .max(webhookEventTypes.length)
      .optional()
      .describe('What to be told about; all of them when left out.'),
  })
  .meta({ id: 'CreateWebhookEndpoint' })

export const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(webhookEventTypes)),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable(),
    disabled_at: isoDateTime.nullable(),
    created_at: isoDateTime,
  })
  .meta({ id: 'WebhookEndpoint' })

export const webhookEndpointWithSecret = webhookEndpoint
  .extend({
    secret: z
      .string()
      .describe('The signing secret (Standard Webhooks, `whsec_`): shown this once, keep it.'),
  })
  .meta({ id: 'WebhookEndpointWithSecret' })

export const webhookDelivery = z
  .object({
    id: z.string(),
    message_id: z.string().describe('The `webhook-id` header: the same on every attempt.'),
    type: z.enum(webhookEventTypes),
    status: z.enum(['pending', 'delivered', 'failed', 'canceled']),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    last_attempt_at: isoDateTime.nullable(),
    next_attempt_at: isoDateTime.nullable(),
    created_at: isoDateTime,
    payload: z.string().describe('The JSON body, exactly as signed.'),
  })
  .meta({ id: 'WebhookDelivery' })

const iso = (ms: number) => new Date(ms).toISOString()

export const asApiEndpoint = (endpoint: WebhookEndpoint): z.infer<typeof webhookEndpoint> => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  status: endpoint.disabled ? 'disabled' : 'enabled',
  disabled_reason: endpoint.disabled?.reason ?? null,
  disabled_at: endpoint.disabled?.at ?? null,
  created_at: endpoint.createdAt,
})

export const asApiDelivery = (doc: DeliveryDoc): z.infer<typeof webhookDelivery> => ({
  id: doc.id,
  message_id: doc.messageId,
  type: doc.type,
  status: doc.status,
  attempts: doc.attempts,
  last_status_code: doc.lastStatusCode,
  last_error: doc.lastError,
  last_attempt_at: doc.lastAttemptAt === null ? null : iso(doc.lastAttemptAt),
  next_attempt_at: doc.status === 'pending' ? iso(doc.nextAttemptAt) : null,
  created_at: iso(doc.createdAt),
  payload: doc.payload,
})
