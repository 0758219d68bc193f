// The console session cookie: reading it, setting it at sign-in, clearing it at sign-out, and the
// cross-site request checks for everything a cookie authenticates. The session itself is server-side
// (app/identity/console-sessions.ts); the cookie holds only its random secret.
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  type ConsoleSession,
  endConsoleSession,
  findConsoleSession,
  openConsoleSession,
} from '../../app/identity/console-sessions.ts'
import type { Services } from '../../app/services.ts'
import type { SignInMethod } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import { authenticate, type Principal, requireAccount, requireConsole } from '../auth.ts'

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Secure everywhere but plain-http localhost, where browsers would drop a Secure cookie. */
function cookieIsSecure(publicUrl: string): boolean {
  const url = new URL(publicUrl)
  return !(url.protocol === 'http:' && loopbackHosts.has(url.hostname))
}

/** `__Host-` binds a Secure cookie to this exact host and path `/`; plain http cannot use the prefix. */
export const hostCookieName = (services: Services, base: string) =>
  cookieIsSecure(services.ctx.config.publicUrl) ? `__Host-${base}` : base

const cookieName = (services: Services) => hostCookieName(services, 'kiln_session')

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/** The signed-in person behind this request's session cookie, or null. */
export async function readConsoleSession(
  services: Services,
  request: FastifyRequest,
): Promise<{ accountId: string; sessionId: string } | null> {
  const secret = readCookie(request, cookieName(services))
  if (!secret) return null
  const session: ConsoleSession | null = await findConsoleSession(services, secret)
  return session && { accountId: session.accountId, sessionId: session.sessionId }
}

/** An HttpOnly, SameSite=Lax cookie for the whole site; Secure but on plain-http localhost. */
export function cookieHeader(services: Services, name: string, value: string, maxAgeSeconds: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`]
  if (cookieIsSecure(services.ctx.config.publicUrl)) parts.push('Secure')
  return parts.join('; ')
}

/** Signs the account in: a new server-side session, its cookie on the reply, a `SignedIn` event. */
export async function startConsoleSession(
  services: Services,
  reply: FastifyReply,
  accountId: string,
  method: SignInMethod,
): Promise<{ sessionId: string }> {
  await requireAccount(services, accountId)
  const { secret, sessionId } = await openConsoleSession(services, accountId, method)
  const maxAge = Math.floor(services.ctx.config.consoleSession.absoluteMs / 1000)
  reply.header('set-cookie', cookieHeader(services, cookieName(services), secret, maxAge))
  return { sessionId }
}

/** Signs out: the server-side session ends (the cookie is useless from now on) and is cleared. */
export async function endConsoleSessionOf(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const secret = readCookie(request, cookieName(services))
  if (secret) await endConsoleSession(services, secret)
  reply.header('set-cookie', cookieHeader(services, cookieName(services), '', 0))
}

/**
 * A cookie-authenticated state change must come from the console's own pages: the browser's Origin
 * must be PUBLIC_URL's (SameSite=Lax already keeps the cookie off cross-site POSTs; this is the second
 * lock, and the one that holds for same-site but cross-origin pages).
 */
export function requireSameOrigin(services: Services, request: FastifyRequest): void {
  const origin = request.headers.origin
  if (origin !== new URL(services.ctx.config.publicUrl).origin)
    throw new DomainError('forbidden', 'This request must come from the console page itself.')
}

/**
 * Where to go after signing in: only a path on this origin (`/…`, never `//…` or `/\…`, which
 * browsers read as another host); anything else goes to the console.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/console'
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/console'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return '/console'
  return value
}

/**
 * The console's caller: an operator's console token sent as a Bearer token (tests, scripts), or the
 * session cookie of a signed-in person. API keys and OAuth tokens are refused.
 */
export async function consolePrincipal(services: Services, request: FastifyRequest): Promise<Principal> {
  if (request.headers.authorization) {
    const principal = await authenticate(services, request.headers.authorization)
    requireConsole(principal)
    return principal
  }
  const session = await readConsoleSession(services, request)
  if (!session) throw new DomainError('unauthorized', 'Sign in to the console.')
  await requireAccount(services, session.accountId)
  return { accountId: session.accountId, kind: 'console', credentialId: session.sessionId }
}
