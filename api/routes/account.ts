import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { openPortal, startCheckout } from '../../app/billing/checkout.ts'
import type { Services } from '../../app/services.ts'
import { DomainError } from '../../domain/errors.ts'
import { getBilling } from '../../projections/accounts/billing.ts'
import { getMe } from '../../projections/accounts/me.ts'
import { requireConsole } from '../auth.ts'

const consoleUrl = (services: Services) => `${services.ctx.config.publicUrl}/console`

import { billing, catalog, errors, me } from '../schemas.ts'

export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/me',
    {
      schema: {
        tags: ['account'],
        summary: 'The account, its limits, usage and credits',
        response: { 200: me, ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      const found = await getMe(app.services.models, request.principal.accountId, {
        now: new Date(app.services.ctx.now()),
        auth: request.principal.kind === 'oauth' ? 'oauth' : 'key',
        storageLimits: app.services.ctx.config.storageLimits,
      })
      if (!found) throw new DomainError('unauthorized', 'No such account.')
      return found
    },
  )

  app.get(
    '/v1/billing',
    {
      schema: {
        tags: ['billing'],
        summary: 'Balance, lots, ledger and subscription',
        response: { 200: billing, ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      const found = await getBilling(app.services.models, request.principal.accountId, {
        now: new Date(app.services.ctx.now()),
      })
      if (!found) throw new DomainError('unauthorized', 'No such account.')
      return found
    },
  )

  app.get(
    '/v1/billing/catalog',
    {
      schema: {
        tags: ['billing'],
        summary: 'Credit packs and bundles for sale',
        response: { 200: catalog, ...errors(401, 403, 429) },
      },
    },
    async () => ({
      available: app.services.ctx.payments !== null,
      items: app.services.catalog,
    }),
  )

  app.post(
    '/v1/billing/checkout',
    {
      schema: {
        tags: ['billing'],
        summary: 'Start a checkout (console sessions only)',
        body: z.strictObject({ item: z.string().min(1).max(100), request_id: z.uuid() }),
        response: { 200: z.object({ url: z.string() }), ...errors(400, 401, 402, 403, 409, 429, 503) },
      },
    },
    async (request) => {
      requireConsole(request.principal)
      return startCheckout(
        app.services.ctx,
        app.services.catalog,
        request.principal.accountId,
        request.body.item,
        request.body.request_id,
        consoleUrl(app.services),
      )
    },
  )

  app.post(
    '/v1/billing/portal',
    {
      schema: {
        tags: ['billing'],
        summary: 'Open the customer portal (console sessions only)',
        response: { 200: z.object({ url: z.string() }), ...errors(401, 403, 409, 429, 503) },
      },
    },
    async (request) => {
      requireConsole(request.principal)
      return openPortal(app.services.ctx, request.principal.accountId, consoleUrl(app.services))
    },
  )
}
