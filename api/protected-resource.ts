// This server as an OAuth protected resource, for the clients that discover authorization by URL
// (MCP clients following the 2025-06-18 and later revisions): RFC 9728 metadata for the REST API and
// for each MCP endpoint, the WWW-Authenticate challenge that points a refused client at it, and the
// MCP transport's browser rules (a foreign Origin is refused; CORS only for allowed origins).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../app/config.ts'
import { toolsets } from '../domain/tools/catalog.ts'
import { readScope, runScope } from './auth.ts'

const wellKnown = '/.well-known/oauth-protected-resource'

/** The metadata URL of the resource that `path` belongs to: `/mcp...` ones have their own. */
export function resourceMetadataUrl(config: Config, path: string): string {
  const mcp = /^\/mcp(\/[a-z0-9]+)?(?:[/?]|$)/.exec(path)
  return `${config.publicUrl}${wellKnown}${mcp ? `/mcp${mcp[1] ?? ''}` : ''}`
}

/** RFC 6750 challenge with the RFC 9728 pointer; `error` only when a token was sent and refused. */
export function bearerChallenge(config: Config, path: string, tokenSent: boolean): string {
  const base = `Bearer realm="kiln", resource_metadata="${resourceMetadataUrl(config, path)}"`
  return tokenSent ? `${base}, error="invalid_token"` : base
}

/** Origins a browser-based MCP client may call from: this server's own, plus MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(config: Config): Set<string> {
  return new Set([new URL(config.publicUrl).origin, ...config.mcpAllowedOrigins])
}

const corsHeaders = {
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version',
  'access-control-expose-headers':
    'www-authenticate, mcp-session-id, mcp-protocol-version, retry-after, request-id',
  'access-control-max-age': '600',
}

/**
 * The MCP transport's Origin rule: a request from a browser page whose origin is not allowed is
 * refused (403) before anything else; one without Origin (a native client) is not a browser's.
 * Allowed origins get CORS headers. Answers the reply when it refused, else null.
 */
export function checkMcpOrigin(
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | null {
  const origin = request.headers.origin
  if (origin === undefined) return null
  if (!allowedOrigins(config).has(origin))
    return reply.status(403).send({
      error: {
        code: 'forbidden',
        message: `Requests from the web origin ${origin} are not allowed on the MCP endpoint.`,
      },
    })
  reply.header('access-control-allow-origin', origin).header('vary', 'Origin').headers(corsHeaders)
  return null
}

/** The URL of the resource a request path belongs to: an MCP endpoint, or the service (REST). */
export function resourceOf(config: Config, path: string): string {
  const mcp = /^\/mcp(\/[a-z0-9]+)?(?:[/?]|$)/.exec(path)
  return mcp ? `${config.publicUrl}/mcp${mcp[1] ?? ''}` : config.publicUrl
}

/** RFC 6750 §3.1: a token that is fine but lacks the scope; clients may ask the person for more. */
export function insufficientScopeChallenge(config: Config, path: string, scope: string): string {
  return `Bearer realm="kiln", resource_metadata="${resourceMetadataUrl(config, path)}", error="insufficient_scope", scope="${scope}"`
}

function metadata(config: Config, resource: string, name: string) {
  return {
    resource,
    resource_name: name,
    // This server's own authorization server (issuer PUBLIC_URL, RFC 8414 metadata at its root),
    // and an external issuer when one is configured.
    authorization_servers: [config.publicUrl, ...(config.oauth ? [config.oauth.issuer] : [])],
    scopes_supported: [runScope, readScope],
    bearer_methods_supported: ['header'],
    resource_documentation: `${config.publicUrl}/openapi.json`,
  }
}

/** RFC 9728 metadata of the REST API (registered by buildApp). */
export async function registerRestResourceMetadata(app: FastifyInstance, config: Config): Promise<void> {
  app.get(wellKnown, { schema: { hide: true } }, async () =>
    metadata(config, config.publicUrl, 'kiln REST API'),
  )
}

/** RFC 9728 metadata of each MCP endpoint and the CORS preflight for them (registered with MCP). */
export async function registerMcpResourceMetadata(app: FastifyInstance, config: Config): Promise<void> {
  app.get(`${wellKnown}/mcp`, { schema: { hide: true } }, async () =>
    metadata(config, `${config.publicUrl}/mcp`, 'kiln MCP (every tool)'),
  )
  for (const toolset of toolsets)
    app.get(`${wellKnown}/mcp/${toolset}`, { schema: { hide: true } }, async () =>
      metadata(config, `${config.publicUrl}/mcp/${toolset}`, `kiln MCP (${toolset} tools)`),
    )
  // CORS preflight for browser-based MCP clients: allowed origins only.
  for (const url of ['/mcp', '/mcp/:toolset'])
    app.options(url, { schema: { hide: true } }, async (request, reply) => {
      if (checkMcpOrigin(config, request, reply)) return reply
      return reply.status(204).send()
    })
}
