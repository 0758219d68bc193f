// The account's OUTGOING webhook endpoints (not Stripe's incoming webhook, routes/webhooks.ts):
// register, list, read, delete, rotate the secret, read the delivery log, redeliver by hand.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { listDeliveries, redeliver } from '../../app/webhooks/deliveries.ts'
import {
  addWebhookEndpoint,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  webhookEndpoints,
} from '../../app/webhooks/endpoints.ts'
import { DomainError } from '../../domain/errors.ts'
import { webhookEventTypes } from '../../domain/webhook/events.ts'
import { errors } from '../schemas.ts'
import {
  asApiDelivery,
  asApiEndpoint,
  createWebhookEndpointBody,
  webhookDelivery,
  webhookEndpoint,
  webhookEndpointIdParam,
  webhookEndpointWithSecret,
} from '../webhook-schemas.ts'

export const webhookEndpointRoutes: FastifyPluginAsyncZod = async (app) => {
  const { ctx } = app.services
  const findEndpoint = async (accountId: string, id: string) => {
    const endpoint = (await webhookEndpoints(ctx, accountId)).find((e) => e.id === id)
    if (!endpoint) throw new DomainError('not_found', `No webhook endpoint ${id}.`)
    return endpoint
  }

  app.post(
    '/v1/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint; its signing secret is shown once',
        description:
          'Deliveries are POSTed as JSON `{type, timestamp, data}` and signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`). They are retried with exponential backoff for about a day; an endpoint that keeps failing is disabled.',
        body: createWebhookEndpointBody,
        response: { 201: webhookEndpointWithSecret, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const { endpoint } = await addWebhookEndpoint(ctx, request.principal.accountId, {
        url: request.body.url,
        events: request.body.events ?? [...webhookEventTypes],
      })
      return reply.status(201).send({ ...asApiEndpoint(endpoint), secret: endpoint.secret })
    },
  )

  app.get(
    '/v1/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List webhook endpoints',
        response: { 200: z.object({ data: z.array(webhookEndpoint) }), ...errors(401, 403, 429) },
      },
    },
    async (request) => ({
      data: (await webhookEndpoints(ctx, request.principal.accountId)).map(asApiEndpoint),
    }),
  )

  app.get(
    '/v1/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Get a webhook endpoint',
        params: webhookEndpointIdParam,
        response: { 200: webhookEndpoint, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => asApiEndpoint(await findEndpoint(request.principal.accountId, request.params.id)),
  )

  app.delete(
    '/v1/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint; pending deliveries to it are dropped',
        params: webhookEndpointIdParam,
        response: {
          200: z.object({ id: z.string(), status: z.literal('deleted') }),
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      await removeWebhookEndpoint(ctx, request.principal.accountId, request.params.id)
      return { id: request.params.id, status: 'deleted' as const }
    },
  )

  app.post(
    '/v1/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Replace the signing secret; the new one is shown once',
        params: webhookEndpointIdParam,
        response: { 200: webhookEndpointWithSecret, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const endpoint = await rotateWebhookSecret(ctx, request.principal.accountId, request.params.id)
      return { ...asApiEndpoint(endpoint), secret: endpoint.secret }
    },
  )

  app.get(
    '/v1/webhook_endpoints/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The delivery log of an endpoint, newest first (at most 50)',
        params: webhookEndpointIdParam,
        response: { 200: z.object({ data: z.array(webhookDelivery) }), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const endpoint = await findEndpoint(request.principal.accountId, request.params.id)
      return { data: (await listDeliveries(app.services.models.store, endpoint.id)).map(asApiDelivery) }
    },
  )

  app.post(
    '/v1/webhook_endpoints/:id/deliveries/:delivery/redeliver',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery again now (same message id)',
        params: webhookEndpointIdParam.extend({ delivery: z.string().regex(/^wd_[A-Za-z0-9_-]{1,80}$/) }),
        response: { 202: webhookDelivery, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const endpoint = await findEndpoint(request.principal.accountId, request.params.id)
      if (endpoint.disabled)
        throw new DomainError(
          'conflict',
          'The endpoint is disabled; register it again to receive deliveries.',
        )
      const again = await redeliver(
        app.services.models.store,
        endpoint.id,
        request.params.delivery,
        ctx.now(),
      )
      if (!again)
        throw new DomainError('not_found', `No delivery ${request.params.delivery} to this endpoint.`)
      return reply.status(202).send(asApiDelivery(again))
    },
  )
}
