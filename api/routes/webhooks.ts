// The payment processor's webhook: verified by its signature over the raw body, idempotent on the
// processor's event id. No Bearer token: the signature is the credential.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { handleProcessorEvent } from '../../app/billing/webhook.ts'
import { DomainError } from '../../domain/errors.ts'
import { errors } from '../schemas.ts'

export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) =>
    done(null, body),
  )

  app.post(
    '/v1/billing/webhook',
    {
      schema: {
        hide: true,
        headers: z.looseObject({ 'stripe-signature': z.string().max(2000).optional() }),
        response: {
          200: z.object({ received: z.literal(true), duplicate: z.boolean() }),
          ...errors(400, 503),
        },
      },
    },
    async (request) => {
      const payments = app.services.ctx.payments
      if (!payments)
        throw new DomainError('payments_unavailable', 'No payment processor is configured on this server.')
      const signature = request.headers['stripe-signature']
      if (!signature || !Buffer.isBuffer(request.body))
        throw new DomainError('invalid_request', 'A signed event body is required.')
      let event: ReturnType<typeof payments.parseWebhook>
      try {
        event = payments.parseWebhook(request.body, signature)
      } catch {
        throw new DomainError('invalid_request', 'The webhook signature does not verify.')
      }
      const { duplicate, position } = await handleProcessorEvent(
        app.services.ctx,
        app.services.catalog,
        event,
      )
      if (position > 0) await app.services.waitForPosition(position)
      return { received: true as const, duplicate }
    },
  )
}
