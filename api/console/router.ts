// The console's tRPC router: thin procedures over the same application services and read models
// as REST, zod on every input, console-session authentication.
import { initTRPC, TRPCError } from '@trpc/server'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { createApiKey, revokeApiKey, revokeConsoleToken } from '../../app/accounts.ts'
import { openPortal, startCheckout } from '../../app/billing/checkout.ts'
import { cancelJob, deleteJob } from '../../app/jobs/job-actions.ts'
import type { Services } from '../../app/services.ts'
import { type DomainError, isDomainError } from '../../domain/errors.ts'
import { getBilling } from '../../projections/accounts/billing.ts'
import { getMe } from '../../projections/accounts/me.ts'
import { getJob, listJobs } from '../../projections/jobs/queries.ts'
import { listConsoleTokens, listKeys } from '../../projections/keys/queries.ts'
import { countAuthFailure, type Principal } from '../auth.ts'
import { admitRequest, type RequestLimits } from '../rate-limit.ts'
import { renderOptions } from '../signed-paths.ts'
import { consolePrincipal } from './session.ts'

export interface ConsoleContext {
  services: Services
  request: FastifyRequest
  reply: FastifyReply
  /** The same buckets as REST and MCP. */
  limits: RequestLimits
}

const trpcCodes: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
}

const t = initTRPC.context<ConsoleContext>().create({
  // Never send server stack traces to the browser.
  isDev: false,
  errorFormatter({ shape, error }) {
    const cause = error.cause as DomainError | undefined
    return { ...shape, data: { ...shape.data, appCode: isDomainError(cause) ? cause.code : null } }
  },
})

const toTrpc = (error: unknown): never => {
  if (isDomainError(error))
    throw new TRPCError({
      code: trpcCodes[error.status] ?? 'INTERNAL_SERVER_ERROR',
      message: error.message,
      cause: error,
    })
  throw error
}

/**
 * Every console procedure: a console session (the signed-in person's cookie, or an operator's console
 * token), and domain errors carried with their spec code.
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
  try {
    return await next({ ctx: { ...ctx, principal } })
  } catch (error) {
    return toTrpc(error)
  }
})

const jobId = z.object({ id: z.string().min(1).max(64) })

export const consoleRouter = t.router({
  me: consoleProcedure.query(({ ctx }) =>
    getMe(ctx.services.models, ctx.principal.accountId, {
      now: new Date(ctx.services.ctx.now()),
      auth: 'key',
    }),
  ),
  billing: consoleProcedure.query(({ ctx }) =>
    getBilling(ctx.services.models, ctx.principal.accountId, { now: new Date(ctx.services.ctx.now()) }),
  ),
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
