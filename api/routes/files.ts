import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { readFileChunk } from '../../app/jobs/read-file-chunk.ts'
import { errors, fileChunk, queryInteger } from '../schemas.ts'

export const fileRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/jobs/:id/files/*',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Read a text output in chunks',
        params: z.object({ id: z.string().max(64), '*': z.string().min(1).max(1024) }),
        querystring: z.object({
          offset: queryInteger(0, Number.MAX_SAFE_INTEGER, 0),
          limit: queryInteger(16, 100_000, 20_000),
        }),
        response: { 200: fileChunk, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) =>
      readFileChunk(
        app.services.ctx,
        app.services.models,
        request.principal.accountId,
        request.params.id,
        request.params['*'],
        request.query.offset,
        request.query.limit,
      ),
  )
}
