// The HTTP surface: /health, /openapi.json, the /v1 REST facade, signed upload and download URLs.
// buildApp(options) returns a Fastify app; tests drive it with inject() or a real port.
import swagger from '@fastify/swagger'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import type { FetchPolicy } from '../app/jobs/stage-input.ts'
import type { Services } from '../app/services.ts'
import { authenticateFrom, knownKeyPrincipal, type Principal, requireScope, runScope } from './auth.ts'
import { serializerCompiler } from './compiled-serializer.ts'
import { clientErrors, frameworkErrors, installErrorHandling } from './error-handler.ts'
import { registerOps, requestId } from './ops/plugin.ts'
import { OwnWrites } from './own-writes.ts'
import { registerRestResourceMetadata } from './protected-resource.ts'
import { admitRequest, RequestLimits } from './rate-limit.ts'
import { accountRoutes } from './routes/account.ts'
import { fileRoutes } from './routes/files.ts'
import { jobEventRoutes } from './routes/job-events.ts'
import { jobCreationPaths, jobRoutes } from './routes/jobs.ts'
import { keyRoutes } from './routes/keys.ts'
import { signedRoutes } from './routes/signed.ts'
import { toolRoutes } from './routes/tools.ts'
import { uploadRoutes } from './routes/uploads.ts'
import { webhookEndpointRoutes } from './routes/webhook-endpoints.ts'
import { webhookRoutes } from './routes/webhooks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
    /** The request limits (per credential, per client address, failed authentications), shared by REST, MCP and the console. */
    rateLimits: RequestLimits
  }
  interface FastifyRequest {
    principal: Principal
  }
}

export interface AppOptions {
  services: Services
  /** false: no request log; a pino logger (app/log.ts): JSON request lines carrying the request id. */
  logger?: boolean | FastifyBaseLogger
  /** Server configuration for URL inputs (tests allow a local HTTPS server); never from requests. */
  fetchPolicy?: FetchPolicy
  /** Extra plugins mounted beside the REST facade (MCP, console). */
  plugins?: ((app: FastifyInstance) => Promise<void>)[]
}

export async function buildApp({
  services,
  logger = false,
  fetchPolicy = {},
  plugins = [],
}: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(typeof logger === 'object' ? { loggerInstance: logger } : { logger }),
    bodyLimit: 1024 * 1024,
    // Fastify leaves these at 0 (never): a slow or silent client would hold its connection forever.
    requestTimeout: services.ctx.config.httpTimeouts.requestMs,
    connectionTimeout: services.ctx.config.httpTimeouts.idleMs,
    keepAliveTimeout: services.ctx.config.httpTimeouts.keepAliveMs,
    // Node reads the request timeout when the server is made (set later, it is never checked), and
    // checks it on this interval (30 s by default): a few checks per timeout.
    http: {
      requestTimeout: services.ctx.config.httpTimeouts.requestMs,
      connectionsCheckingInterval: Math.min(
        30_000,
        Math.max(250, Math.floor(services.ctx.config.httpTimeouts.requestMs / 4)),
      ),
    },
    // X-Forwarded-For is believed only from the configured proxies: anyone else could pick their own
    // address and escape the per-address limits.
    trustProxy: services.ctx.config.trustProxy.length > 0 ? services.ctx.config.trustProxy : false,
    return503OnClosing: true,
    frameworkErrors,
    clientErrorHandler: clientErrors,
    genReqId: requestId,
  }).withTypeProvider<ZodTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.decorate('services', services)
  app.decorateRequest('principal', null as unknown as Principal)
  installErrorHandling(app)

  // Only the tagged /v1 routes are the public contract; MCP and the console's tRPC are documented elsewhere.
  await app.register(swagger, {
    hideUntagged: true,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'kiln',
        version: '2.0.0',
        description: 'Job-based file processing for agents and developers.',
      },
      servers: [{ url: services.ctx.config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // Without it the schemas named with .meta({ id }) are $ref'd but never defined in components.
    transformObject: jsonSchemaTransformObject,
  })

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  await registerOps(app, services)
  await registerRestResourceMetadata(app, services.ctx.config)
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  await app.register(signedRoutes)
  await app.register(webhookRoutes)

  const limits = RequestLimits.fromConfig(services.ctx.config)
  const ownWrites = new OwnWrites()
  app.decorate('rateLimits', limits)
  await app.register(async (authenticated) => {
    /** Admits an authenticated request; a promise only when it must wait for its own writes. */
    const admit = (request: FastifyRequest, reply: FastifyReply, principal: Principal) => {
      request.principal = principal
      admitRequest(limits, reply, principal.credentialId, request.ip, services.ctx.now())
      // Every /v1 change (jobs, uploads, cancel, delete) runs or spends: read-only tokens only read.
      if (request.method !== 'GET' && request.method !== 'HEAD') requireScope(principal, runScope)
      // Whatever this account created here a moment ago is in the read models before it reads them.
      // Job creation itself reads no model but the storage one, and settles before that read.
      if (request.method !== 'POST' || !jobCreationPaths.has(request.routeOptions.url ?? ''))
        return ownWrites.settle(services, principal.accountId)
      return undefined
    }
    // Callback-style: a known API key is answered without a promise or a turn of the microtask
    // queue; anything else (first use, OAuth, a pending write) takes the asynchronous path.
    authenticated.addHook('onRequest', (request, reply, done) => {
      let waiting: Promise<void> | undefined
      try {
        const known = knownKeyPrincipal(services, limits, request)
        if (known) waiting = admit(request, reply, known)
        else
          waiting = authenticateFrom(services, limits, request).then((principal) =>
            admit(request, reply, principal),
          )
      } catch (error) {
        return done(error as Error)
      }
      if (!waiting) return done()
      waiting.then(() => done(), done)
    })
    await authenticated.register(toolRoutes)
    await authenticated.register(jobRoutes(fetchPolicy, ownWrites))
    await authenticated.register(jobEventRoutes)
    await authenticated.register(fileRoutes)
    await authenticated.register(uploadRoutes)
    await authenticated.register(accountRoutes)
    await authenticated.register(keyRoutes)
    await authenticated.register(webhookEndpointRoutes)
  })
  for (const plugin of plugins) await plugin(app)
  return app
}
