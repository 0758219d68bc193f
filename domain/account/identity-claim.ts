// Which account a sign-in identity belongs to. One small stream per (provider, subject): its first
// event, appended only when the stream does not exist yet, is the single place where the identity is
// given to an account. Two browsers signing up with the same identity at once therefore end up in one
// account, and a passkey's credential id, which the browser chooses, can never be given to a second
// account. Sign-in looks an identity up by this stream, never by e-mail.

import type { Command } from '../command.ts'
import { DomainError } from '../errors.ts'
import type { IdentityProvider } from './events.ts'

export type IdentityClaimEvent = {
  type: 'IdentityClaimed'
  data: { provider: IdentityProvider; subject: string; accountId: string; at: string }
}

export type IdentityClaimCommand = Command<
  'ClaimIdentity',
  { provider: IdentityProvider; subject: string; accountId: string }
>

export interface IdentityClaimState {
  accountId: string | null
}

export const initialIdentityClaimState = (): IdentityClaimState => ({ accountId: null })

export function evolveIdentityClaim(
  state: IdentityClaimState,
  event: IdentityClaimEvent,
): IdentityClaimState {
  return state.accountId === null ? { accountId: event.data.accountId } : state
}

/** Claims the identity for the account; an identity already claimed stays with its account (no event). */
export function decideIdentityClaim(
  command: IdentityClaimCommand,
  state: IdentityClaimState,
): IdentityClaimEvent[] {
  const { provider, subject, accountId, now } = command.data
  if (subject.length === 0 || subject.length > 512)
    throw new DomainError('invalid_request', 'The provider gave no usable account id.')
  if (state.accountId !== null) return []
  return [
    { type: 'IdentityClaimed', data: { provider, subject, accountId, at: new Date(now).toISOString() } },
  ]
}

/** The claim stream of an identity, named by a digest of (provider, subject) the caller computes. */
export const identityClaimStream = (digest: string) => `identity-${digest}`
