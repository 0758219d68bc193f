// The page where a person lets an app act for their account. Only a signed-in person (a console
// session) gets here: anyone else is sent to /console/sign-in and brought back. The sign-in step of
// the protocol is answered from the console session; the consent step shows the client's name, the
// host its answer goes to, the service it will reach and the scopes in words, and records the grant.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import { connectApp } from '../../app/identity/oauth-connections.ts'
import { DomainError } from '../../domain/errors.ts'
import { type AccountDoc, accountsModel, collections } from '../../projections/accounts/account-docs.ts'
import { readScope, requireAccount } from '../auth.ts'
import { readConsoleSession, requireSameOrigin } from '../console/session.ts'
import { consentPath, errorPage, escapeHtml, scopeDescriptions } from './authorization-server.ts'

const pagePolicy = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

interface ConsentView {
  uid: string
  client: { name: string; id: string }
  redirectHost: string
  scopes: string[]
  resource: string
  /** Whose account it is: the person may be signed in as someone they did not expect. */
  login: string
}

function consentPage({ uid, client, redirectHost, scopes, resource, login }: ConsentView) {
  const items = scopes
    .map(
      (scope) =>
        `<li data-scope="${escapeHtml(scope)}">${escapeHtml(scopeDescriptions[scope] ?? scope)}</li>`,
    )
    .join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Allow ${escapeHtml(client.name)}?</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/console/console.css"></head>
<body><main><h1>Allow <span id="client-name">${escapeHtml(client.name)}</span> to use your kiln account?</h1>
<p>Signed in as <strong id="login">${escapeHtml(login)}</strong>.</p>
<p>It will send you back to <strong id="redirect-host">${escapeHtml(redirectHost)}</strong> and reach
<code id="resource">${escapeHtml(resource)}</code>.</p>
<p>It asks to:</p><ul id="scopes">${items}</ul>
<p class="muted">Client id: <code>${escapeHtml(client.id)}</code>. You can disconnect it at any time in the console.</p>
<form method="post" action="${consentPath}/${escapeHtml(uid)}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form></main></body></html>`
}

/**
 * What the client asks for, in the person's terms: the service it will reach (RFC 8707; the whole
 * service when it names none) and the scopes this server knows, `read` when it asks for none (a
 * token without scopes only reads). A renewed consent shows everything asked, not only what is new.
 */
function askedScopes(details: Details, publicUrl: string): { resource: string; scopes: string[] } {
  const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>
  const named = [details.params.resource].flat().find((value) => typeof value === 'string')
  const resource = named ?? Object.keys(missing)[0] ?? publicUrl
  const asked = String(details.params.scope ?? '')
    .split(' ')
    .filter((scope) => scope in scopeDescriptions)
  return { resource, scopes: asked.length > 0 ? [...new Set(asked)].sort() : [readScope] }
}

export async function registerConsent(app: FastifyInstance, authorizationServer: () => Provider) {
  const services = app.services

  /** The interaction for this request, or a page saying it is over (expired, or another browser's). */
  async function interaction(request: FastifyRequest, reply: FastifyReply): Promise<Details | null> {
    try {
      return await authorizationServer().interactionDetails(request.raw, reply.raw)
    } catch {
      reply
        .status(400)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', pagePolicy)
        .send(
          errorPage(
            'invalid_request',
            'This authorization request has expired or belongs to another browser; start again from the app.',
          ),
        )
      return null
    }
  }

  const signInRedirect = (request: FastifyRequest, reply: FastifyReply) =>
    reply.redirect(`/console/sign-in?return_to=${encodeURIComponent(request.url.split('?')[0]!)}`, 303)

  app.get<{ Params: { uid: string } }>(
    `${consentPath}/:uid`,
    { schema: { hide: true } },
    async (request, reply) => {
      const session = await readConsoleSession(services, request)
      if (!session) return signInRedirect(request, reply)
      // A disabled account lets no app in (403 account_disabled), as it lets no request in.
      await requireAccount(services, session.accountId)
      const details = await interaction(request, reply)
      if (!details) return reply
      const provider = authorizationServer()
      if (details.prompt.name === 'login') {
        // The console session is the sign-in: the protocol's login step is answered from it.
        const returnTo = await provider.interactionResult(request.raw, reply.raw, {
          login: { accountId: session.accountId },
        })
        return reply.redirect(returnTo, 303)
      }
      if (details.session?.accountId !== session.accountId) {
        // Signed in as someone else since the request began: begin again as the person now signed in.
        const returnTo = await provider.interactionResult(
          request.raw,
          reply.raw,
          {
            login: { accountId: session.accountId },
          },
          { mergeWithLastSubmission: false },
        )
        return reply.redirect(returnTo, 303)
      }
      const client = await provider.Client.find(String(details.params.client_id))
      if (!client) throw new DomainError('invalid_request', 'The client is unknown.')
      const { resource, scopes } = askedScopes(details, services.ctx.config.publicUrl)
      const redirectHost = new URL(String(details.params.redirect_uri)).host
      const account = await (
        await services.models.collection<AccountDoc>(accountsModel, collections.accounts)
      ).get(session.accountId)
      return (
        reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', pagePolicy)
          .header('cache-control', 'no-store')
          .header('x-frame-options', 'DENY')
          // Not no-referrer: the form's POST must carry this page's Origin for the same-origin check.
          .header('referrer-policy', 'same-origin')
          .send(
            consentPage({
              uid: details.uid,
              client: { name: client.clientName ?? client.clientId, id: client.clientId },
              redirectHost,
              scopes,
              resource,
              login: account?.login ?? session.accountId,
            }),
          )
      )
    },
  )

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    )
    scope.post<{ Params: { uid: string }; Body: { decision?: string } }>(
      `${consentPath}/:uid`,
      { schema: { hide: true } },
      async (request, reply) => {
        // A cookie-authenticated decision: only from this origin's own page, only when signed in.
        requireSameOrigin(services, request)
        const session = await readConsoleSession(services, request)
        if (!session) throw new DomainError('unauthorized', 'Sign in to the console to answer this request.')
        await requireAccount(services, session.accountId)
        const details = await interaction(request, reply)
        if (!details) return reply
        const provider = authorizationServer()
        if (details.prompt.name !== 'consent' || details.session?.accountId !== session.accountId)
          throw new DomainError('forbidden', 'This authorization request is not waiting for your consent.')
        if (request.body?.decision !== 'allow') {
          const returnTo = await provider.interactionResult(request.raw, reply.raw, {
            error: 'access_denied',
            error_description: 'The account owner declined.',
          })
          return reply.redirect(returnTo, 303)
        }
        const clientId = String(details.params.client_id)
        const grant = details.grantId
          ? ((await provider.Grant.find(details.grantId)) ??
            new provider.Grant({ accountId: session.accountId, clientId }))
          : new provider.Grant({ accountId: session.accountId, clientId })
        const missingOidc = details.prompt.details.missingOIDCScope as string[] | undefined
        if (missingOidc) grant.addOIDCScope(missingOidc.join(' '))
        const { resource, scopes } = askedScopes(details, services.ctx.config.publicUrl)
        const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>
        for (const [indicator, asked] of Object.entries(missing))
          grant.addResourceScope(indicator, asked.join(' '))
        const grantId = await grant.save()
        const client = await provider.Client.find(clientId)
        await connectApp(services, {
          grantId,
          accountId: session.accountId,
          clientId,
          clientName: client?.clientName ?? clientId,
          redirectHost: new URL(String(details.params.redirect_uri)).host,
          scopes,
          resource,
        })
        const returnTo = await provider.interactionResult(request.raw, reply.raw, { consent: { grantId } })
        return reply.redirect(returnTo, 303)
      },
    )
  })
}
