// Mounts the MCP endpoints: /mcp (every tool) and /mcp/{toolset} (one family), over Streamable HTTP
// with the same Bearer authentication as REST. The SDK's createMcpHandler serves 2026-07-28 requests
// and, for 2025-era clients (initialize, 2025-06-18 and 2025-11-25), the stateless fallback; both
// build a fresh server per request, so any instance can answer any request.
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../app/services.ts'
import { type DomainError, isDomainError } from '../../domain/errors.ts'
import { type Toolset, toolsets } from '../../domain/tools/catalog.ts'
import { authenticateFrom, type Principal } from '../auth.ts'
import {
  bearerChallenge,
  checkMcpOrigin,
  registerMcpResourceMetadata,
  resourceOf,
} from '../protected-resource.ts'
import { admitRequest, RequestLimits } from '../rate-limit.ts'
import { createMcpServer } from './server.ts'

export interface McpOptions {
  /** The longest a tool call waits for its job, well under the 60 s many clients allow. */
  waitMs?: number
}

const defaultWaitMs = 20_000

function principalFrom(extra: Record<string, unknown> | undefined): Principal {
  const principal = extra?.principal as Principal | undefined
  if (!principal) throw new Error('The MCP handler was reached without an authenticated principal.')
  return principal
}

function sendError(reply: FastifyReply, error: DomainError, challenge: string) {
  if (error.status === 401) reply.header('www-authenticate', challenge)
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
  return reply.status(error.status).send({ error: { code: error.code, message: error.message } })
}

/** The request as the SDK's web-standard handler takes it; the body stays unparsed so the SDK answers JSON-RPC parse errors itself. */
function toWebRequest(request: FastifyRequest, signal: AbortSignal, base: string): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const body =
    request.body instanceof Buffer && request.body.length > 0 ? new Uint8Array(request.body) : undefined
  // On this server's own origin, never the client's Host header: a malformed one is no URL at all.
  return new Request(new URL(request.url, base), {
    method: request.method,
    headers,
    body,
    signal,
  })
}

export async function registerMcp(
  app: FastifyInstance,
  services: Services,
  options: McpOptions = {},
): Promise<void> {
  const waitMs = options.waitMs ?? defaultWaitMs
  const handlerFor = (toolset: Toolset | null): McpHttpHandler =>
    createMcpHandler(
      ({ authInfo }) =>
        createMcpServer(
          { services, principal: principalFrom(authInfo?.extra), waitMs, log: app.log },
          toolset,
        ),
      {
        legacy: 'stateless',
        onerror: (error) => app.log.warn({ err: error }, 'mcp request failed'),
      },
    )
  const handlers = new Map<Toolset | null, McpHttpHandler>([
    [null, handlerFor(null)],
    ...toolsets.map((t) => [t, handlerFor(t)] as const),
  ])
  app.addHook('onClose', async () => {
    for (const handler of handlers.values()) await handler.close()
  })

  // Shares REST's buckets when mounted in the full app; standing alone, it keeps its own.
  const limits = app.hasDecorator('rateLimits')
    ? app.rateLimits
    : RequestLimits.fromConfig(services.ctx.config)

  await registerMcpResourceMetadata(app, services.ctx.config)
  await app.register(async (scope) => {
    // The SDK parses and validates the body (JSON-RPC errors, 415); here it is only collected.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    const serve = async (request: FastifyRequest<{ Params: { toolset?: string } }>, reply: FastifyReply) => {
      const toolset = request.params.toolset ?? null
      const handler = handlers.get(toolset as Toolset | null)
      if (!handler) {
        return reply.status(404).send({
          error: {
            code: 'not_found',
            message: `No toolset ${toolset}; the toolsets are ${toolsets.join(', ')}.`,
          },
        })
      }
      if (checkMcpOrigin(services.ctx.config, request, reply)) return reply
      let principal: Principal
      try {
        principal = await authenticateFrom(
          services,
          limits,
          request,
          resourceOf(services.ctx.config, request.url),
        )
        // The same buckets as REST: MCP is not a way around the rate limits.
        admitRequest(limits, reply, principal.credentialId, request.ip, services.ctx.now())
      } catch (error) {
        if (isDomainError(error))
          return sendError(
            reply,
            error,
            bearerChallenge(services.ctx.config, request.url, request.headers.authorization !== undefined),
          )
        throw error
      }
      const disconnected = new AbortController()
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) disconnected.abort()
      })
      // The handlers need who is calling, never the secret itself, so the token is not passed on.
      const authInfo = {
        token: 'redacted',
        clientId: principal.credentialId,
        scopes: [],
        extra: { principal },
      }
      return reply.send(
        await handler.fetch(toWebRequest(request, disconnected.signal, services.ctx.config.publicUrl), {
          authInfo,
        }),
      )
    }
    scope.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: serve })
    scope.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp/:toolset', handler: serve })
  })
}
