// The console: its tRPC router under /internal/trpc and its web page at /console. The page loads
// the real @trpc/client modules, served from node_modules through an import map (no bundler).
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, extname, join, normalize, sep } from 'node:path'
import type { TRPCError } from '@trpc/server'
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import { contentTypeOf } from '../../domain/media-types.ts'
import { authenticateFrom, requireConsole } from '../auth.ts'
import { RequestLimits } from '../rate-limit.ts'
import { registerSignIn } from '../sign-in/plugin.ts'
import { consoleRouter } from './router.ts'
import { endConsoleSessionOf, requireSameOrigin, safeReturnTo, startConsoleSession } from './session.ts'

export const consoleTrpcPrefix = '/internal/trpc'

const require = createRequire(import.meta.url)
const packageDist = (name: string) => join(dirname(require.resolve(`${name}/package.json`)), 'dist')
const vendorRoots: Record<string, string> = {
  'trpc-client': packageDist('@trpc/client'),
  'trpc-server': packageDist('@trpc/server'),
  // The browser half of passkeys: its ES modules as published (relative imports, `.js` names).
  // (its exports map hides package.json; the CommonJS entry sits in script/, beside esm/)
  'simplewebauthn-browser': join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'esm'),
}
const publicDir = join(import.meta.dirname, 'public')
/**
 * The console page's Content-Security-Policy: scripts only from this origin, plus the page's one
 * inline import map, allowed by its hash; no framing; nothing sent to other origins.
 */
async function consolePolicy(): Promise<string> {
  const html = await readFile(join(publicDir, 'index.html'), 'utf8')
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? ''
  const hash = createHash('sha256').update(importMap).digest('base64')
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

const stateChanging = (request: FastifyRequest) =>
  request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS'

const tokenSignIn = z.object({
  token: z.string().min(1).max(200),
  return_to: z.string().max(2000).optional(),
})

export async function registerConsole(app: FastifyInstance): Promise<void> {
  const policy = await consolePolicy()
  // Shares REST's buckets when mounted in the full app; standing alone, it keeps its own.
  const limits = app.hasDecorator('rateLimits')
    ? app.rateLimits
    : RequestLimits.fromConfig(app.services.ctx.config)
  // CSRF: what a cookie authenticates may change state only when the browser says the request comes
  // from this origin. A Bearer console token (operators, tests) is not sent by browsers on their own.
  // Callback-style hooks: they run on every request of the app, and an async hook costs a promise
  // and a turn of the microtask queue even when it does nothing.
  app.addHook('onRequest', (request, _reply, done) => {
    const path = request.url
    if (!stateChanging(request) || request.headers.authorization) return done()
    try {
      if (path.startsWith(`${consoleTrpcPrefix}/`) || path.startsWith('/console/'))
        requireSameOrigin(app.services, request)
    } catch (error) {
      return done(error as Error)
    }
    done()
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/console'))
      reply
        .header('content-security-policy', policy)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('x-frame-options', 'DENY')
    done(null, payload)
  })

  await app.register(fastifyTRPCPlugin, {
    prefix: consoleTrpcPrefix,
    trpcOptions: {
      router: consoleRouter,
      createContext: ({ req, res }: { req: FastifyRequest; res: FastifyReply }) => ({
        services: app.services,
        request: req,
        reply: res,
        limits,
      }),
      // The browser sees a generic message and the request id for these; the detail is kept here.
      onError: ({ error, req }: { error: TRPCError; req: FastifyRequest }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR' && !isDomainError(error.cause))
          req.log.error({ err: error.cause ?? error, requestId: req.id }, 'console call failed')
      },
    },
  })

  const page =
    (file: string) => async (_request: unknown, reply: { type(t: string): { send(b: Buffer): unknown } }) =>
      reply.type(contentTypeOf(file)).send(await readFile(join(publicDir, file)))
  app.get('/console', { schema: { hide: true } }, page('index.html'))
  // The sign-in page is the console page itself; its script reads `return_to` and goes there after.
  app.get('/console/sign-in', { schema: { hide: true } }, page('index.html'))

  // An operator's console token opens the same cookie session a person's sign-in does; the token
  // itself never stays in the page.
  app.post('/console/session', { schema: { hide: true } }, async (request, reply) => {
    const body = tokenSignIn.safeParse(request.body)
    if (!body.success) throw new DomainError('invalid_request', 'Send {"token": "<console token>"}.')
    const principal = await authenticateFrom(app.services, limits, {
      headers: { authorization: `Bearer ${body.data.token}` },
      ip: request.ip,
    })
    requireConsole(principal)
    await startConsoleSession(
      app.services,
      reply,
      principal.accountId,
      'console_token',
      principal.credentialId,
    )
    return { return_to: safeReturnTo(body.data.return_to) }
  })
  app.post('/console/sign-out', { schema: { hide: true } }, async (request, reply) => {
    await endConsoleSessionOf(app.services, request, reply)
    return { signed_out: true }
  })
  await registerSignIn(app)
  app.get('/console/console.js', { schema: { hide: true } }, page('console.js'))
  app.get('/console/console.css', { schema: { hide: true } }, page('console.css'))

  app.get<{ Params: { pkg: string; '*': string } }>(
    '/console/vendor/:pkg/*',
    { schema: { hide: true } },
    async (request, reply) => {
      const root = vendorRoots[request.params.pkg]
      const path = root ? normalize(join(root, request.params['*'])) : ''
      if (!root || !path.startsWith(root + sep) || !['.mjs', '.js'].includes(extname(path)))
        return reply.status(404).send({ error: { code: 'not_found', message: 'No such file.' } })
      // Read before the reply is typed as JavaScript: a JSON 404 sent under that type fails to serialize.
      const file = await readFile(path).catch(() => null)
      if (file === null)
        return reply.status(404).send({ error: { code: 'not_found', message: 'No such file.' } })
      return reply
        .type(contentTypeOf('module.mjs'))
        .header('cache-control', 'public, max-age=3600')
        .send(file)
    },
  )
}
