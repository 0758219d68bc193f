// Invitation codes (SIGNUP=invite): operators create them; a sign-up presents one, and redeeming it
// is part of opening the account. Only the code's hash is stored.
import { invitationProblem, invitationStream } from '../../domain/account/invitation.ts'
import { DomainError } from '../../domain/errors.ts'
import { newSecret, randomString } from '../../domain/ids.ts'
import type { ServiceContext } from '../context.ts'
import { invitationDecider } from '../deciders.ts'
import { handleCommand, readState } from '../handle-command.ts'
import { hashSecret } from '../security/secrets.ts'

export const invitationPrefix = 'kiln_iv_'
const codeShape = /^kiln_iv_[0-9A-Za-z]{43}$/

const streamOf = (code: string) => invitationStream(hashSecret(code))

/** A new single-use invitation code, valid INVITATION_DAYS; `createdBy` names who made it. */
export async function createInvitation(ctx: ServiceContext, createdBy: string) {
  const code = newSecret(ctx.random, invitationPrefix)
  const invitationId = `inv_${randomString(ctx.random, '0123456789abcdefghijklmnopqrstuvwxyz', 20)}`
  const now = ctx.now()
  const expiresAt = now + ctx.config.invitationValidMs
  await handleCommand(ctx.store, streamOf(code), invitationDecider, {
    type: 'CreateInvitation',
    data: { invitationId, createdBy, expiresAt, now },
  })
  return { code, invitationId, expiresAt: new Date(expiresAt).toISOString() }
}

/** Refuses (403) a code that could not open an account now; writes nothing. */
export async function checkInvitation(ctx: ServiceContext, code: string | null): Promise<void> {
  const refuse = (message: string) =>
    new DomainError('forbidden', message, { hint: 'Ask the operator for an invitation code.' })
  if (!code) throw refuse('Sign-up on this server is by invitation: enter your invitation code.')
  if (!codeShape.test(code)) throw refuse('This invitation code is not valid.')
  const { state } = await readState(ctx.store, streamOf(code), invitationDecider)
  const problem = invitationProblem(state, ctx.now())
  if (problem) throw refuse(problem)
}

/** Spends the code on the new account (single use: a second account is refused). */
export async function redeemInvitation(ctx: ServiceContext, code: string, accountId: string): Promise<void> {
  await handleCommand(ctx.store, streamOf(code), invitationDecider, {
    type: 'RedeemInvitation',
    data: { accountId, now: ctx.now() },
  })
}
