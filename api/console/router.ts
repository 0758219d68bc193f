// The console's tRPC router: thin procedures over the same application services and read models
// as REST, zod on every input, console-session authentication.
import { initTRPC, TRPCError } from '@trpc/server'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { createApiKey, revokeApiKey, revokeConsoleToken } from '../../app/accounts.ts'
import { openPortal, startCheckout } from '../../app/billing/checkout.ts'
import { listConnectedApps, revokeConnectedApp } from '../../app/identity/oauth-connections.ts'
import { cancelJob, deleteJob } from '../../app/jobs/job-actions.ts'
import { clientSafeText } from '../../app/security/client-safe-text.ts'
import type { Services } from '../../app/services.ts'
import { listDeliveries, redeliver } from '../../app/webhooks/deliveries.ts'
import {
  addWebhookEndpoint,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  webhookEndpoints,
} from '../../app/webhooks/endpoints.ts'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import { webhookEventTypes } from '../../domain/webhook/events.ts'
import { getBilling } from '../../projections/accounts/billing.ts'
import { getMe } from '../../projections/accounts/me.ts'
import { getJob, listJobs } from '../../projections/jobs/queries.ts'
import { listConsoleTokens, listKeys } from '../../projections/keys/queries.ts'
import { listPasskeys } from '../../projections/passkeys/queries.ts'
import { countAuthFailure, type Principal } from '../auth.ts'
import { internalMessage } from '../error-handler.ts'
import { admitRequest, type RequestLimits } from '../rate-limit.ts'
import { renderOptions } from '../signed-paths.ts'
import {
  asApiDelivery,
  asApiEndpoint,
  createWebhookEndpointBody,
  webhookEndpointIdParam,
} from '../webhook-schemas.ts'
import { consolePrincipal } from './session.ts'

export interface ConsoleContext {
  services: Services
  request: FastifyRequest
  reply: FastifyReply
  /** The same buckets as REST and MCP. */
  limits: RequestLimits
}

export const trpcCodes: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  411: 'BAD_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
}

const t = initTRPC.context<ConsoleContext>().create({
  // Never send server stack traces to the browser.
  isDev: false,
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause
    if (isDomainError(cause)) return { ...shape, data: { ...shape.data, appCode: cause.code } }
    // A failure that is not a business rule: its text may name server paths or internals, so the
    // browser gets a stable code and the request id; the detail is logged under that id (plugin.ts).
    if (error.code === 'INTERNAL_SERVER_ERROR')
      return {
        ...shape,
        message: internalMessage(ctx?.request.id),
        data: { ...shape.data, appCode: 'internal', requestId: ctx?.request.id ?? null },
      }
    return { ...shape, data: { ...shape.data, appCode: null } }
  },
})

const toTrpc = (error: unknown): never => {
  if (isDomainError(error))
    throw new TRPCError({
      code: trpcCodes[error.status] ?? 'INTERNAL_SERVER_ERROR',
      message: clientSafeText(error.message),
      cause: error,
    })
  throw error
}

/**
 * Every console procedure: a console session (the signed-in person's cookie, or an operator's console
 * token), and domain errors carried with their spec code and HTTP status. tRPC hands a procedure's
 * failure to its middleware as a result rather than a throw, so the status is set from that result.
 */
const consoleProcedure = t.procedure.use(async ({ ctx, next }) => {
  const { services, request, reply, limits } = ctx
  let principal: Principal
  try {
    limits.authFailures.check(request.ip, services.ctx.now())
    try {
      principal = await consolePrincipal(services, request)
    } catch (error) {
      // A wrong token or session secret counts against the address, like a wrong key on REST.
      const presented = request.headers.authorization !== undefined || request.headers.cookie !== undefined
      if (presented && isDomainError(error) && error.code === 'unauthorized')
        countAuthFailure(services, limits, request.ip)
      throw error
    }
    admitRequest(limits, reply, principal.credentialId, request.ip, services.ctx.now())
  } catch (error) {
    return toTrpc(error)
  }
  const result = await next({ ctx: { ...ctx, principal } })
  if (!result.ok && isDomainError(result.error.cause)) return toTrpc(result.error.cause)
  return result
})

const jobId = z.object({ id: z.string().min(1).max(64) })

export const consoleRouter = t.router({
  me: consoleProcedure.query(({ ctx }) =>
    getMe(ctx.services.models, ctx.principal.accountId, {
      now: new Date(ctx.services.ctx.now()),
      auth: 'key',
      storageLimits: ctx.services.ctx.config.storageLimits,
    }),
  ),
  billing: consoleProcedure.query(({ ctx }) =>
    getBilling(ctx.services.models, ctx.principal.accountId, { now: new Date(ctx.services.ctx.now()) }),
  ),
  passkeys: consoleProcedure.query(({ ctx }) => listPasskeys(ctx.services.models, ctx.principal.accountId)),
  catalog: consoleProcedure.query(({ ctx }) => ({
    available: ctx.services.ctx.payments !== null,
    items: ctx.services.catalog,
  })),
  checkout: consoleProcedure
    .input(z.object({ item: z.string().min(1).max(100), requestId: z.uuid() }))
    .mutation(({ ctx, input }) =>
      startCheckout(
        ctx.services.ctx,
        ctx.services.catalog,
        ctx.principal.accountId,
        input.item,
        input.requestId,
        `${ctx.services.ctx.config.publicUrl}/console`,
      ),
    ),
  portal: consoleProcedure.mutation(({ ctx }) =>
    openPortal(ctx.services.ctx, ctx.principal.accountId, `${ctx.services.ctx.config.publicUrl}/console`),
  ),
  keys: t.router({
    list: consoleProcedure.query(({ ctx }) => listKeys(ctx.services.models, ctx.principal.accountId)),
    create: consoleProcedure
      .input(z.object({ name: z.string().min(1).max(60) }))
      .mutation(async ({ ctx, input }) => {
        const { position, ...key } = await createApiKey(ctx.services.ctx, ctx.principal.accountId, input.name)
        await ctx.services.waitForPosition(position)
        return key
      }),
    revoke: consoleProcedure.input(jobId).mutation(async ({ ctx, input }) => {
      const { position } = await revokeApiKey(ctx.services.ctx, ctx.principal.accountId, input.id)
      await ctx.services.waitForPosition(position)
      return { id: input.id, status: 'revoked' as const }
    }),
  }),
  consoleTokens: t.router({
    list: consoleProcedure.query(({ ctx }) =>
      listConsoleTokens(ctx.services.models, ctx.principal.accountId),
    ),
    revoke: consoleProcedure.input(jobId).mutation(async ({ ctx, input }) => {
      const { position } = await revokeConsoleToken(ctx.services.ctx, ctx.principal.accountId, input.id)
      await ctx.services.waitForPosition(position)
      return { id: input.id, status: 'revoked' as const }
    }),
  }),
  /** OAuth clients the person let act for the account (client, scopes, last use); revoking ends every token at once. */
  connectedApps: t.router({
    list: consoleProcedure.query(({ ctx }) => listConnectedApps(ctx.services, ctx.principal.accountId)),
    revoke: consoleProcedure
      .input(z.object({ id: z.string().min(1).max(100) }))
      .mutation(async ({ ctx, input }) => {
        await revokeConnectedApp(ctx.services, ctx.principal.accountId, input.id)
        return { id: input.id, status: 'revoked' as const }
      }),
  }),
  webhooks: t.router({
    list: consoleProcedure.query(async ({ ctx }) =>
      (await webhookEndpoints(ctx.services.ctx, ctx.principal.accountId)).map(asApiEndpoint),
    ),
    create: consoleProcedure.input(createWebhookEndpointBody).mutation(async ({ ctx, input }) => {
      const { endpoint } = await addWebhookEndpoint(ctx.services.ctx, ctx.principal.accountId, {
        url: input.url,
        events: input.events ?? [...webhookEventTypes],
      })
      return { ...asApiEndpoint(endpoint), secret: endpoint.secret }
    }),
    rotate: consoleProcedure.input(webhookEndpointIdParam).mutation(async ({ ctx, input }) => {
      const endpoint = await rotateWebhookSecret(ctx.services.ctx, ctx.principal.accountId, input.id)
      return { ...asApiEndpoint(endpoint), secret: endpoint.secret }
    }),
    remove: consoleProcedure.input(webhookEndpointIdParam).mutation(async ({ ctx, input }) => {
      await removeWebhookEndpoint(ctx.services.ctx, ctx.principal.accountId, input.id)
      return { id: input.id, status: 'deleted' as const }
    }),
    deliveries: consoleProcedure.input(webhookEndpointIdParam).query(async ({ ctx, input }) => {
      const owned = (await webhookEndpoints(ctx.services.ctx, ctx.principal.accountId)).some(
        (e) => e.id === input.id,
      )
      if (!owned) return []
      return (await listDeliveries(ctx.services.models.store, input.id)).map(asApiDelivery)
    }),
    redeliver: consoleProcedure
      .input(webhookEndpointIdParam.extend({ delivery: z.string().min(1).max(100) }))
      .mutation(async ({ ctx, input }) => {
        const owned = (await webhookEndpoints(ctx.services.ctx, ctx.principal.accountId)).find(
          (e) => e.id === input.id,
        )
        const again =
          owned && !owned.disabled
            ? await redeliver(ctx.services.models.store, input.id, input.delivery, ctx.services.ctx.now())
            : null
        if (!again) throw new DomainError('not_found', 'No such delivery to an enabled endpoint.')
        return asApiDelivery(again)
      }),
  }),
  jobs: t.router({
    list: consoleProcedure
      .input(
        z.object({
          limit: z.int().min(1).max(100).default(20),
          before: z.int().min(0).nullable().default(null),
          tool: z.string().max(64).nullable().default(null),
        }),
      )
      .query(({ ctx, input }) =>
        listJobs(ctx.services.models, ctx.principal.accountId, input, renderOptions(ctx.services)),
      ),
    get: consoleProcedure
      .input(jobId)
      .query(({ ctx, input }) =>
        getJob(ctx.services.models, ctx.principal.accountId, input.id, renderOptions(ctx.services)),
      ),
    cancel: consoleProcedure.input(jobId).mutation(async ({ ctx, input }) => {
      const result = await cancelJob(ctx.services.ctx, ctx.principal.accountId, input.id)
      await ctx.services.waitForPosition(result.position)
      return { id: result.id, status: result.status }
    }),
    delete: consoleProcedure.input(jobId).mutation(async ({ ctx, input }) => {
      const result = await deleteJob(ctx.services.ctx, ctx.principal.accountId, input.id)
      await ctx.services.waitForPosition(result.position)
      return { id: result.id, status: result.status }
    }),
  }),
})

export type ConsoleRouter = typeof consoleRouter
