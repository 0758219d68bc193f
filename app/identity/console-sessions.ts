// Console sessions: what a person's browser holds after signing in. The browser keeps only a random
// secret (in an HttpOnly cookie); the server keeps its hash with the account, the time it was opened
// and the time of the last request, in the read store (SQLite or MongoDB), so sessions survive a
// restart and every API process sees the same ones. Signing in is an event (`SignedIn`); the
// session's own comings and goings are not (each request would otherwise write to the account stream).
import { accountStream, type SignInMethod } from '../../domain/account/events.ts'
import { newSecret, randomString } from '../../domain/ids.ts'
import { findCredentialById } from '../../projections/keys/queries.ts'
import type { Doc } from '../../projections/read-store.ts'
import { accountDecider } from '../deciders.ts'
import { handleCommand } from '../handle-command.ts'
import { hashSecret } from '../security/secrets.ts'
import type { Services } from '../services.ts'

export const consoleSessionsCollection = 'console_sessions'
const sessionSecretPrefix = 'kiln_ss_'
/** Last-use times are written at most this often per session (a request is not a write each time). */
const touchEveryMs = 60_000
/** The position of an ended session: no later touch can bring it back. */
const endedPosition = Number.MAX_SAFE_INTEGER

interface SessionDoc extends Doc {
  sessionId: string
  accountId: string
  method: SignInMethod
  openedAt: number
  lastSeenAt: number
  ended: boolean
  /** The console token the session was opened with: revoking or expiring it ends the session too. */
  tokenId?: string
}

export interface ConsoleSession {
  sessionId: string
  accountId: string
}

const sessions = (services: Services) =>
  services.models.store.collection<SessionDoc>(consoleSessionsCollection)

/** Opens a session for the account (recording the sign-in) and answers the secret for the cookie. */
export async function openConsoleSession(
  services: Services,
  accountId: string,
  method: SignInMethod,
  tokenId?: string,
): Promise<{ secret: string; sessionId: string }> {
  const { ctx } = services
  const secret = newSecret(ctx.random, sessionSecretPrefix)
  const sessionId = `ses_${randomString(ctx.random, '0123456789abcdefghijklmnopqrstuvwxyz', 20)}`
  const now = ctx.now()
  // The event names the session by its public id only; the secret's hash never leaves the read store.
  await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'RecordSignIn',
    data: { method, sessionRef: sessionId, now },
  })
  await sessions(services).putGuarded([
    {
      id: hashSecret(secret),
      position: now,
      sessionId,
      accountId,
      method,
      openedAt: now,
      lastSeenAt: now,
      ended: false,
      ...(tokenId ? { tokenId } : {}),
    },
  ])
  return { secret, sessionId }
}

/** The live session holding this secret, touched; null when unknown, ended, idle too long or too old. */
export async function findConsoleSession(services: Services, secret: string): Promise<ConsoleSession | null> {
  if (!secret.startsWith(sessionSecretPrefix) || secret.length > 80) return null
  const doc = await sessions(services).get(hashSecret(secret))
  if (!doc || doc.ended) return null
  const now = services.ctx.now()
  const { idleMs, absoluteMs } = services.ctx.config.consoleSession
  if (now - doc.lastSeenAt >= idleMs || now - doc.openedAt >= absoluteMs) return null
  if (doc.tokenId && !(await tokenStillValid(services, doc.tokenId, now))) return null
  if (now - doc.lastSeenAt >= touchEveryMs)
    await sessions(services).putGuarded([{ ...doc, position: now, lastSeenAt: now }])
  return { sessionId: doc.sessionId, accountId: doc.accountId }
}

async function tokenStillValid(services: Services, tokenId: string, now: number): Promise<boolean> {
  const token = await findCredentialById(services.models, tokenId)
  return !!token && !token.revoked && (token.expiresAt === null || Date.parse(token.expiresAt) > now)
}

/** Ends the session holding this secret (sign-out); unknown secrets are ignored. */
export async function endConsoleSession(services: Services, secret: string): Promise<void> {
  const doc = await sessions(services).get(hashSecret(secret))
  if (!doc) return
  await sessions(services).putGuarded([{ ...doc, position: endedPosition, ended: true }])
}
