import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createUploadWithinLimits } from '../account-storage.ts'
import { errors, upload } from '../schemas.ts'
import { signedUploadUrl } from '../signed-paths.ts'

export const uploadRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/uploads',
    {
      schema: {
        tags: ['uploads'],
        summary: 'Create an upload: a signed PUT URL valid one hour',
        body: z.strictObject({ filename: z.string().min(1).max(255) }),
        response: { 201: upload, ...errors(400, 401, 403, 413, 429) },
      },
    },
    async (request, reply) => {
      const created = await createUploadWithinLimits(
        app.services,
        request.principal.accountId,
        request.body.filename,
      )
      return reply.status(201).send({
        upload_id: created.uploadId,
        method: 'PUT' as const,
        url: signedUploadUrl(app.services, created.uploadId, created.expiresAt),
        max_bytes: created.maxBytes,
        expires_at: new Date(created.expiresAt).toISOString(),
      })
    },
  )
}
