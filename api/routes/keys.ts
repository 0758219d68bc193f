import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createApiKey, revokeApiKey } from '../../app/accounts.ts'
import { DomainError } from '../../domain/errors.ts'
import { listKeys } from '../../projections/keys/queries.ts'
import { requireConsole } from '../auth.ts'
import { createdKey, errors, keyRecord } from '../schemas.ts'

export const keyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/keys',
    {
      schema: {
        tags: ['keys'],
        summary: 'List API keys (console sessions only)',
        response: { 200: z.object({ keys: z.array(keyRecord) }), ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      requireConsole(request.principal)
      return { keys: await listKeys(app.services.models, request.principal.accountId) }
    },
  )

  app.post(
    '/v1/keys',
    {
      schema: {
        tags: ['keys'],
        summary: 'Create an API key; the secret is returned once (console sessions only)',
        body: z.strictObject({ name: z.string().min(1).max(60).default('default') }).optional(),
        response: { 201: createdKey, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      requireConsole(request.principal)
      const { position, ...key } = await createApiKey(
        app.services.ctx,
        request.principal.accountId,
        request.body?.name ?? 'default',
      )
      await app.services.waitForPosition(position)
      return reply.status(201).send(key)
    },
  )

  app.delete(
    '/v1/keys/:id',
    {
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key (console sessions only)',
        params: z.object({ id: z.string().max(64) }),
        response: {
          200: z.object({ id: z.string(), status: z.literal('revoked') }),
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      requireConsole(request.principal)
      const keys = await listKeys(app.services.models, request.principal.accountId)
      if (!keys.some((k) => k.id === request.params.id)) throw new DomainError('not_found', 'No such key.')
      const { position } = await revokeApiKey(
        app.services.ctx,
        request.principal.accountId,
        request.params.id,
      )
      await app.services.waitForPosition(position)
      return { id: request.params.id, status: 'revoked' as const }
    },
  )
}
