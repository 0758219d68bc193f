// Mounts the authorization server: oidc-provider's endpoints under /oauth, its metadata at the
// issuer's well-known addresses (RFC 8414 and OpenID discovery), and the consent page a signed-in
// person answers. The provider is built on first use, from the configuration as it is then.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import type { FetchPolicy } from '../../app/jobs/stage-input.ts'
import type { Services } from '../../app/services.ts'
import { createAuthorizationServer, oauthPrefix } from './authorization-server.ts'
import { registerConsent } from './consent.ts'

export interface OAuthOptions {
  /** How Client ID Metadata Documents are fetched (tests allow a local HTTPS server). */
  fetchPolicy?: FetchPolicy
}

export function registerOAuth(options: OAuthOptions = {}) {
  return async (app: FastifyInstance): Promise<void> => {
    const services: Services = app.services
    let provider: Provider | null = null
    const authorizationServer = () => {
      provider ??= createAuthorizationServer(services, options.fetchPolicy ?? {}, app.log)
      return provider
    }

    /**
     * Hands the raw request to the provider as if it were mounted at `mountPath`, on PUBLIC_URL's host
     * and scheme (never the client's Host header, which would otherwise name the endpoints).
     */
    const handOver = (request: FastifyRequest, reply: FastifyReply, path: string, mountPath: string) => {
      const raw = request.raw as IncomingMessage & { originalUrl?: string }
      const base = new URL(services.ctx.config.publicUrl)
      raw.originalUrl = `${mountPath}${path}`
      raw.url = path
      raw.headers.host = base.host
      raw.headers['x-forwarded-host'] = base.host
      raw.headers['x-forwarded-proto'] = base.protocol.replace(':', '')
      reply.hijack()
      authorizationServer().callback()(raw, reply.raw as ServerResponse)
    }

    await app.register(async (scope) => {
      // The provider reads request bodies itself.
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null))
      scope.route({
        method: ['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT'],
        url: `${oauthPrefix}/*`,
        schema: { hide: true },
        handler: (request, reply) => {
          // Registration is open and every POST writes to the store: one bucket per client address.
          if (request.method === 'POST' && app.hasDecorator('rateLimits'))
            app.rateLimits.perAddress.take(`oauth:${request.ip}`, services.ctx.now())
          handOver(request, reply, request.url.slice(oauthPrefix.length) || '/', oauthPrefix)
        },
      })
      for (const metadataPath of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
      ])
        scope.get(metadataPath, { schema: { hide: true } }, (request, reply) =>
          handOver(request, reply, '/.well-known/openid-configuration', oauthPrefix),
        )
    })
    await registerConsent(app, authorizationServer)
  }
}
