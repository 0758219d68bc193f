// How people sign up and sign in to the console: passkeys (JSON endpoints the console page calls with
// @simplewebauthn/browser), GitHub and OpenID providers (browser redirects: /start sends the browser to
// the provider, /callback finishes). Every path is under /console/, so the console's CSRF check
// (Origin on state-changing requests) and its Content-Security-Policy cover them. A signed-in person
// who starts any of them links the method to their account instead of signing in.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { gitHubAuthorizationUrl, gitHubUser } from '../../app/identity/github.ts'
import { oidcAuthorizationUrl, oidcUser } from '../../app/identity/oidc.ts'
import {
  authenticationOptions,
  passkeyIdsOf,
  registrationOptions,
  verifyAuthentication,
  verifyRegistration,
} from '../../app/identity/passkeys.ts'
import {
  beginFlow,
  type FlowKind,
  flowLifetimeMs,
  type SignInFlow,
  takeFlow,
} from '../../app/identity/sign-in-flows.ts'
import {
  checkSignUpAllowed,
  type Identity,
  linkIdentity,
  signInWithIdentity,
} from '../../app/identity/sign-up.ts'
import type { Services } from '../../app/services.ts'
import type { SignInMethod } from '../../domain/account/events.ts'
import { DomainError, errorCatalog, isDomainError } from '../../domain/errors.ts'
import { newAccountId } from '../../domain/ids.ts'
import { getMe } from '../../projections/accounts/me.ts'
import {
  cookieHeader,
  hostCookieName,
  readConsoleSession,
  readCookie,
  safeReturnTo,
  startConsoleSession,
} from '../console/session.ts'

export const signInPrefix = '/console/auth'

const flowCookie = (services: Services) => hostCookieName(services, 'kiln_sign_in')

const startQuery = z.object({
  invitation: z.string().max(200).optional(),
  return_to: z.string().max(2000).optional(),
})

const passkeyRegisterBody = z.object({
  login: z.string().trim().max(60).optional(),
  invitation: z.string().trim().max(200).optional(),
  return_to: z.string().max(2000).optional(),
})

/** The browser's WebAuthn answer as @simplewebauthn/browser sends it; the library checks the rest. */
const webAuthnAnswer = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().max(10_000) }),
  clientExtensionResults: z.looseObject({}).default({}),
})

const loginShape = /^[\p{L}\p{N}._-]{1,40}$/u

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** A failed browser flow as a small page (the browser navigated here), with the error's status. */
function failurePage(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!isDomainError(error)) request.log.error({ err: error }, 'sign-in: unexpected failure')
  const domain = isDomainError(error) ? error : new DomainError('internal', 'Signing in failed; try again.')
  if (domain.retryAfterSeconds !== undefined) reply.header('retry-after', String(domain.retryAfterSeconds))
  const title = domain.code === 'rate_limited' ? 'Too many attempts' : 'Sign-in did not work'
  return reply
    .status(errorCatalog[domain.code].status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
        `<link rel="stylesheet" href="/console/console.css"></head><body><main><section>` +
        `<h1>${title}</h1><p id="sign-in-failure" data-code="${domain.code}">${escapeHtml(domain.message)}</p>` +
        `${domain.hint ? `<p>${escapeHtml(domain.hint)}</p>` : ''}` +
        `<p><a href="/console/sign-in">Back to sign-in</a></p></section></main></body></html>`,
    )
}

export async function registerSignIn(app: FastifyInstance): Promise<void> {
  const services = app.services
  const config = services.ctx.config
  const callbackUrl = (path: string) => `${config.publicUrl}${signInPrefix}${path}`

  /**
   * Starting a flow stores it: per client address, starts spend the same token bucket as requests
   * (ADDRESS_RATE_LIMIT_PER_SECOND, ADDRESS_RATE_LIMIT_BURST), so nobody fills the store with abandoned flows quickly.
   */
  async function startFlow(request: FastifyRequest, reply: FastifyReply, flow: SignInFlow): Promise<void> {
    app.rateLimits.perAddress.take(`sign-in ${request.ip}`, services.ctx.now())
    const secret = await beginFlow(services, flow)
    reply.header('set-cookie', cookieHeader(services, flowCookie(services), secret, flowLifetimeMs / 1000))
  }

  async function finishFlow(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: FlowKind,
  ): Promise<SignInFlow> {
    const flow = await takeFlow(services, readCookie(request, flowCookie(services)), kind)
    reply.header('set-cookie', cookieHeader(services, flowCookie(services), '', 0))
    if (!flow)
      throw new DomainError(
        'invalid_request',
        'This sign-in expired or was already used, or did not start in this browser.',
        {
          hint: 'Start the sign-in again.',
        },
      )
    return flow
  }

  /** What a flow started by this request is for: linking when a person is signed in, else sign-in or sign-up. */
  async function intent(request: FastifyRequest, invitation: string | undefined) {
    const session = await readConsoleSession(services, request)
    return { linkAccountId: session?.accountId ?? null, invitationCode: invitation?.trim() || null }
  }

  /** Signs in (or up) with the identity, or links it; opens the console session. */
  async function complete(
    request: FastifyRequest,
    reply: FastifyReply,
    flow: SignInFlow,
    method: SignInMethod,
    identity: Identity,
    profile: { login: string; email: string | null },
    passkey: Parameters<typeof signInWithIdentity>[4] = null,
  ): Promise<string> {
    if (flow.linkAccountId) {
      const position = await linkIdentity(services.ctx, flow.linkAccountId, identity, passkey)
      await services.waitForPosition(position)
      return flow.returnTo
    }
    const { accountId, position } = await signInWithIdentity(
      services.ctx,
      identity,
      profile,
      { address: request.ip, invitationCode: flow.invitationCode, accountId: flow.newAccountId ?? undefined },
      passkey,
    )
    await services.waitForPosition(position)
    await startConsoleSession(services, reply, accountId, method)
    return flow.returnTo
  }

  app.get(`${signInPrefix}/methods`, { schema: { hide: true } }, async () => ({
    signup: config.signup,
    passkey: true,
    github: config.github !== null,
    oidc: config.oidcProviders.map((p) => ({ id: p.id, name: p.name })),
  }))

  // Passkeys: options, then the browser's answer.
  app.post(`${signInPrefix}/passkey/register-options`, { schema: { hide: true } }, async (request, reply) => {
    const body = passkeyRegisterBody.safeParse(request.body ?? {})
    if (!body.success)
      throw new DomainError('invalid_request', 'Send {"login": "<name>", "invitation": "<code>"}.')
    const { linkAccountId, invitationCode } = await intent(request, body.data.invitation)
    let userId: string
    let userName: string
    if (linkAccountId) {
      userId = linkAccountId
      userName =
        (await getMe(services.models, linkAccountId, { now: new Date(services.ctx.now()), auth: 'key' }))
          ?.login ?? linkAccountId
    } else {
      const login = body.data.login || 'me'
      if (!loginShape.test(login))
        throw new DomainError(
          'invalid_request',
          'A name has 1 to 40 letters, digits, dots, dashes or underscores.',
        )
      await checkSignUpAllowed(services.ctx, invitationCode)
      userId = newAccountId(services.ctx.random)
      userName = login
    }
    const options = await registrationOptions(services, {
      userId,
      userName,
      exclude: linkAccountId ? await passkeyIdsOf(services, linkAccountId) : [],
    })
    await startFlow(request, reply, {
      kind: 'passkey-register',
      provider: null,
      challenge: options.challenge,
      state: null,
      nonce: null,
      codeVerifier: null,
      invitationCode,
      linkAccountId,
      newAccountId: linkAccountId ? null : userId,
      login: userName,
      returnTo: safeReturnTo(body.data.return_to),
    })
    return options
  })

  app.post(`${signInPrefix}/passkey/register`, { schema: { hide: true } }, async (request, reply) => {
    const answer = webAuthnAnswer.safeParse(request.body)
    if (!answer.success) throw new DomainError('invalid_request', 'Send the passkey the browser created.')
    const flow = await finishFlow(request, reply, 'passkey-register')
    const { credentialId, passkey } = await verifyRegistration(
      services,
      answer.data as unknown as RegistrationResponseJSON,
      flow.challenge!,
    )
    const returnTo = await complete(
      request,
      reply,
      flow,
      'passkey',
      { provider: 'passkey', subject: credentialId },
      { login: flow.login ?? 'me', email: null },
      passkey,
    )
    return { return_to: returnTo, linked: flow.linkAccountId !== null }
  })

  app.post(
    `${signInPrefix}/passkey/authenticate-options`,
    { schema: { hide: true } },
    async (request, reply) => {
      const returnTo = (request.body as { return_to?: unknown } | undefined)?.return_to
      const options = await authenticationOptions(services)
      await startFlow(request, reply, {
        kind: 'passkey-authenticate',
        provider: null,
        challenge: options.challenge,
        state: null,
        nonce: null,
        codeVerifier: null,
        invitationCode: null,
        linkAccountId: null,
        newAccountId: null,
        login: null,
        returnTo: safeReturnTo(returnTo),
      })
      return options
    },
  )

  app.post(`${signInPrefix}/passkey/authenticate`, { schema: { hide: true } }, async (request, reply) => {
    const answer = webAuthnAnswer.safeParse(request.body)
    if (!answer.success)
      throw new DomainError('invalid_request', 'Send the passkey assertion the browser made.')
    const flow = await finishFlow(request, reply, 'passkey-authenticate')
    const accountId = await verifyAuthentication(
      services,
      answer.data as unknown as AuthenticationResponseJSON,
      flow.challenge!,
    )
    await startConsoleSession(services, reply, accountId, 'passkey')
    return { return_to: flow.returnTo }
  })

  // GitHub and OpenID providers: the browser is sent away and comes back to the callback.

  async function beginRedirect(
    request: FastifyRequest,
    reply: FastifyReply,
    flow: Omit<
      SignInFlow,
      'linkAccountId' | 'invitationCode' | 'returnTo' | 'challenge' | 'newAccountId' | 'login'
    >,
    url: string,
  ) {
    const query = startQuery.safeParse(request.query)
    if (!query.success) throw new DomainError('invalid_request', 'Unexpected sign-in parameters.')
    const { linkAccountId, invitationCode } = await intent(request, query.data.invitation)
    // SIGNUP is not checked here: whether this is a first sign-in is known only when the provider answers.
    await startFlow(request, reply, {
      ...flow,
      challenge: null,
      newAccountId: null,
      login: null,
      linkAccountId,
      invitationCode,
      returnTo: safeReturnTo(query.data.return_to),
    })
    return reply.redirect(url, 302)
  }

  if (config.github) {
    const github = config.github
    const redirectUri = () => callbackUrl('/github/callback')
    app.get(`${signInPrefix}/github/start`, { schema: { hide: true } }, async (request, reply) => {
      try {
        const start = await gitHubAuthorizationUrl(github, redirectUri())
        return await beginRedirect(
          request,
          reply,
          {
            kind: 'github',
            provider: 'github',
            state: start.state,
            nonce: null,
            codeVerifier: start.codeVerifier,
          },
          start.url,
        )
      } catch (error) {
        return failurePage(request, reply, error)
      }
    })
    app.get(`${signInPrefix}/github/callback`, { schema: { hide: true } }, async (request, reply) => {
      try {
        const query = request.query as Record<string, unknown>
        const flow = await finishFlow(request, reply, 'github')
        if (typeof query.error === 'string')
          throw new DomainError(
            'invalid_request',
            `GitHub did not sign you in (${query.error.slice(0, 100)}).`,
          )
        if (typeof query.state !== 'string' || query.state !== flow.state)
          throw new DomainError(
            'invalid_request',
            'Signing in with GitHub did not work: the sign-in did not start in this browser (state mismatch).',
          )
        if (typeof query.code !== 'string' || query.code.length > 500)
          throw new DomainError('invalid_request', 'GitHub sent no authorization code.')
        const user = await gitHubUser(github, {
          code: query.code,
          redirectUri: redirectUri(),
          codeVerifier: flow.codeVerifier!,
        })
        const returnTo = await complete(
          request,
          reply,
          flow,
          'github',
          { provider: 'github', subject: user.subject },
          user.profile,
        )
        return reply.redirect(returnTo, 302)
      } catch (error) {
        return failurePage(request, reply, error)
      }
    })
  }

  for (const provider of config.oidcProviders) {
    const redirectUri = () => callbackUrl(`/oidc/${provider.id}/callback`)
    app.get(
      `${signInPrefix}/oidc/${provider.id}/start`,
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          const start = await oidcAuthorizationUrl(provider, redirectUri())
          return await beginRedirect(
            request,
            reply,
            {
              kind: 'oidc',
              provider: provider.id,
              state: start.state,
              nonce: start.nonce,
              codeVerifier: start.codeVerifier,
            },
            start.url,
          )
        } catch (error) {
          return failurePage(request, reply, error)
        }
      },
    )
    app.get(
      `${signInPrefix}/oidc/${provider.id}/callback`,
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          const flow = await finishFlow(request, reply, 'oidc')
          if (flow.provider !== provider.id)
            throw new DomainError('invalid_request', 'This sign-in started with another provider.')
          // The URL the provider sent the browser to, on PUBLIC_URL (the Host header is not trusted).
          const current = new URL(request.url, config.publicUrl)
          const user = await oidcUser(provider, current, {
            state: flow.state!,
            nonce: flow.nonce!,
            codeVerifier: flow.codeVerifier!,
          })
          const returnTo = await complete(
            request,
            reply,
            flow,
            `oidc:${provider.id}`,
            { provider: `oidc:${provider.id}`, subject: user.subject },
            user.profile,
          )
          return reply.redirect(returnTo, 302)
        } catch (error) {
          return failurePage(request, reply, error)
        }
      },
    )
  }
}
