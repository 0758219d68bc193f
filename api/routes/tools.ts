import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { isToolAvailable } from '../../app/generation/availability.ts'
import { toolCatalog } from '../../domain/tools/catalog.ts'
import { accountDoc } from '../account-doc.ts'
import { errors, tool } from '../schemas.ts'
import { toolView } from '../tool-view.ts'

export const toolRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/tools',
    {
      schema: {
        summary: 'List the tools',
        tags: ['tools'],
        response: { 200: z.object({ tools: z.array(tool) }), ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      const account = await accountDoc(app.services, request.principal.accountId)
      const publicUrl = app.services.ctx.config.publicUrl
      return {
        tools: [...toolCatalog.values()]
          .filter((t) => isToolAvailable(t.id))
          .map((t) => toolView(t, publicUrl, account.purchased)),
      }
    },
  )
}
