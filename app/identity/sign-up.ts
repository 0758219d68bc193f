// Signing in with an identity (a passkey, GitHub, an OpenID provider) and, on its first use, opening
// the account it signs in to. The identity's claim stream (domain/account/identity-claim.ts) says which
// account it belongs to; nothing here looks at e-mail addresses to find an account.
//
// A first sign-in opens an account in this order, each step an event: the address's sign-up is counted
// (429 beyond SIGNUP_RATE_LIMIT), the invitation is redeemed (SIGNUP=invite), the identity is claimed
// for the new account id, the account is opened with the signup grant, the identity is linked to it.
// Every refusal (closed, invitation, rate limit) is checked before the first write. Should a process
// die after the claim, the next sign-in with the identity finds the claim and finishes opening the
// account.
import { createHash } from 'node:crypto'
import { accountStream, type IdentityProvider } from '../../domain/account/events.ts'
import { identityClaimStream } from '../../domain/account/identity-claim.ts'
import { signUpLimitStream } from '../../domain/account/signup-limit.ts'
import { DomainError } from '../../domain/errors.ts'
import { newAccountId } from '../../domain/ids.ts'
import { openAccount } from '../accounts.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider, identityClaimDecider, signUpLimitDecider } from '../deciders.ts'
import { handleCommand, readState } from '../handle-command.ts'
import { checkInvitation, redeemInvitation } from './invitations.ts'

export interface Identity {
  provider: IdentityProvider
  /** The provider's stable id of the person (GitHub's numeric id, OIDC `sub`, a passkey's credential id). */
  subject: string
}

/** What a new account is opened with. */
export interface NewAccountProfile {
  login: string
  /** Only an address the provider says is verified; otherwise null. */
  email: string | null
}

/** A passkey's public half, recorded on the account it signs in to. */
export interface PasskeyRecord {
  publicKey: string
  counter: number
  transports: string[]
}

export interface SignUpContext {
  /** The client's address, for the per-address sign-up limit. */
  address: string
  invitationCode: string | null
  /** The account id to open, when the caller fixed it beforehand (a passkey's user handle). */
  accountId?: string
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n'), 'utf8').digest('hex')
const claimStream = (identity: Identity) => identityClaimStream(digest(identity.provider, identity.subject))

/** The account this identity signs in to, or null when it has none yet. */
export async function accountOfIdentity(ctx: ServiceContext, identity: Identity): Promise<string | null> {
  const { state } = await readState(ctx.store, claimStream(identity), identityClaimDecider)
  return state.accountId
}

async function claim(ctx: ServiceContext, identity: Identity, accountId: string): Promise<string> {
  const { state } = await handleCommand(ctx.store, claimStream(identity), identityClaimDecider, {
    type: 'ClaimIdentity',
    data: { ...identity, accountId, now: ctx.now() },
  })
  return state.accountId!
}

/** Records the identity on the account (and a passkey's key): the `IdentityLinked` / `PasskeyRegistered` event. */
async function link(
  ctx: ServiceContext,
  accountId: string,
  identity: Identity,
  passkey: PasskeyRecord | null,
): Promise<number> {
  const now = ctx.now()
  const { position } = await handleCommand(
    ctx.store,
    accountStream(accountId),
    accountDecider,
    passkey
      ? { type: 'RegisterPasskey', data: { credentialId: identity.subject, ...passkey, now } }
      : { type: 'LinkIdentity', data: { ...identity, now } },
  )
  return position
}

/** Refuses a sign-up the server's SIGNUP mode does not allow; writes nothing. */
export async function checkSignUpAllowed(ctx: ServiceContext, invitationCode: string | null): Promise<void> {
  switch (ctx.config.signup) {
    case 'closed':
      throw new DomainError(
        'forbidden',
        'Sign-up is closed on this server: only existing accounts can sign in.',
        { hint: 'Ask the operator for an account.' },
      )
    case 'invite':
      return checkInvitation(ctx, invitationCode)
    case 'open':
      return
  }
}

async function openWithIdentity(
  ctx: ServiceContext,
  identity: Identity,
  profile: NewAccountProfile,
  passkey: PasskeyRecord | null,
  context: SignUpContext,
): Promise<{ accountId: string; created: boolean; position: number }> {
  await checkSignUpAllowed(ctx, context.invitationCode)
  const { perAddress, windowMs } = ctx.config.signupRateLimit
  await handleCommand(ctx.store, signUpLimitStream(digest('address', context.address)), signUpLimitDecider, {
    type: 'CountSignUp',
    data: { limit: perAddress, windowMs, now: ctx.now() },
  })
  const newId = context.accountId ?? newAccountId(ctx.random)
  if (ctx.config.signup === 'invite') await redeemInvitation(ctx, context.invitationCode!, newId)
  const accountId = await claim(ctx, identity, newId)
  // Another sign-up with this identity won the claim a moment ago: sign in to its account instead.
  if (accountId !== newId)
    return {
      accountId,
      created: false,
      position: await finishOpening(ctx, accountId, identity, profile, passkey),
    }
  await openAccount(ctx, { accountId, login: profile.login, email: profile.email })
  return { accountId, created: true, position: await link(ctx, accountId, identity, passkey) }
}

/** Links the identity (a no-op once linked); opens the claimed account first if a sign-up stopped half-way. */
async function finishOpening(
  ctx: ServiceContext,
  accountId: string,
  identity: Identity,
  profile: NewAccountProfile,
  passkey: PasskeyRecord | null,
): Promise<number> {
  try {
    return await link(ctx, accountId, identity, passkey)
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'not_found') throw error
    await openAccount(ctx, { accountId, login: profile.login, email: profile.email })
    return link(ctx, accountId, identity, passkey)
  }
}

/**
 * The account this identity signs in to: the one that claimed it, or (first sign-in) a new account
 * with the signup grant when SIGNUP allows it.
 */
export async function signInWithIdentity(
  ctx: ServiceContext,
  identity: Identity,
  profile: NewAccountProfile,
  context: SignUpContext,
  passkey: PasskeyRecord | null = null,
): Promise<{ accountId: string; created: boolean; position: number }> {
  const existing = await accountOfIdentity(ctx, identity)
  if (existing === null) return openWithIdentity(ctx, identity, profile, passkey, context)
  return {
    accountId: existing,
    created: false,
    position: await finishOpening(ctx, existing, identity, profile, passkey),
  }
}

/** Links another sign-in method to a signed-in person's account; refused when it belongs to another account. */
export async function linkIdentity(
  ctx: ServiceContext,
  accountId: string,
  identity: Identity,
  passkey: PasskeyRecord | null = null,
): Promise<number> {
  const owner = await claim(ctx, identity, accountId)
  if (owner !== accountId)
    throw new DomainError('conflict', 'This sign-in method already belongs to another account.', {
      hint: 'Sign in with it to use that account instead.',
    })
  return link(ctx, accountId, identity, passkey)
}
