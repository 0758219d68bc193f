// Invitation codes for SIGNUP=invite: an operator creates one, the first sign-up that presents it
// redeems it, and nobody can redeem it again. One stream per code (named by the code's hash), so the
// expected revision of the redeeming append is what makes a code single-use.
import type { Command } from '../command.ts'
import { DomainError } from '../errors.ts'

export type InvitationEvent =
  | {
      type: 'InvitationCreated'
      data: { invitationId: string; createdBy: string; expiresAt: string; at: string }
    }
  | { type: 'InvitationRedeemed'; data: { invitationId: string; accountId: string; at: string } }

export type InvitationCommand =
  | Command<'CreateInvitation', { invitationId: string; createdBy: string; expiresAt: number }>
  | Command<'RedeemInvitation', { accountId: string }>

export interface InvitationState {
  invitationId: string | null
  expiresAt: number
  redeemedBy: string | null
}

export const initialInvitationState = (): InvitationState => ({
  invitationId: null,
  expiresAt: 0,
  redeemedBy: null,
})

export function evolveInvitation(state: InvitationState, event: InvitationEvent): InvitationState {
  switch (event.type) {
    case 'InvitationCreated':
      return { ...state, invitationId: event.data.invitationId, expiresAt: Date.parse(event.data.expiresAt) }
    case 'InvitationRedeemed':
      return { ...state, redeemedBy: event.data.accountId }
  }
}

/** Why this invitation cannot open an account now, or null when it can. */
export function invitationProblem(state: InvitationState, now: number): string | null {
  if (state.invitationId === null) return 'This invitation code is not valid.'
  if (state.redeemedBy !== null) return 'This invitation code was already used.'
  if (state.expiresAt <= now) return 'This invitation code has expired.'
  return null
}

export function decideInvitation(command: InvitationCommand, state: InvitationState): InvitationEvent[] {
  const { now } = command.data
  const at = new Date(now).toISOString()
  switch (command.type) {
    case 'CreateInvitation': {
      if (state.invitationId !== null) return []
      const { invitationId, createdBy, expiresAt } = command.data
      if (expiresAt <= now)
        throw new DomainError('invalid_request', 'An invitation must expire in the future.')
      return [
        {
          type: 'InvitationCreated',
          data: { invitationId, createdBy, expiresAt: new Date(expiresAt).toISOString(), at },
        },
      ]
    }
    case 'RedeemInvitation': {
      if (state.redeemedBy === command.data.accountId) return []
      const problem = invitationProblem(state, now)
      if (problem)
        throw new DomainError('forbidden', problem, { hint: 'Ask the operator for a new invitation.' })
      return [
        {
          type: 'InvitationRedeemed',
          data: { invitationId: state.invitationId!, accountId: command.data.accountId, at },
        },
      ]
    }
  }
}

export const invitationStream = (codeDigest: string) => `invitation-${codeDigest}`
