// The aggregates, each as a Decider for handleCommand.
import type { AccountCommand } from '../domain/account/commands.ts'
import { decideAccount } from '../domain/account/decide.ts'
import type { AccountEvent } from '../domain/account/events.ts'
import {
  decideIdentityClaim,
  evolveIdentityClaim,
  type IdentityClaimCommand,
  type IdentityClaimEvent,
  type IdentityClaimState,
  initialIdentityClaimState,
} from '../domain/account/identity-claim.ts'
import {
  decideInvitation,
  evolveInvitation,
  type InvitationCommand,
  type InvitationEvent,
  type InvitationState,
  initialInvitationState,
} from '../domain/account/invitation.ts'
import {
  decideSignUpLimit,
  evolveSignUpLimit,
  initialSignUpLimitState,
  type SignUpLimitCommand,
  type SignUpLimitEvent,
  type SignUpLimitState,
} from '../domain/account/signup-limit.ts'
import { type AccountState, evolveAccount, initialAccountState } from '../domain/account/state.ts'
import type { JobCommand } from '../domain/job/commands.ts'
import { decideJob } from '../domain/job/decide.ts'
import type { JobEvent } from '../domain/job/events.ts'
import { evolveJob, initialJobState, type JobState } from '../domain/job/state.ts'
import { decidePayment, type PaymentCommand } from '../domain/payment/decide.ts'
import type { PaymentEvent } from '../domain/payment/events.ts'
import { evolvePayment, initialPaymentState, type PaymentState } from '../domain/payment/state.ts'
import { decideUpload, type UploadCommand } from '../domain/upload/decide.ts'
import type { UploadEvent } from '../domain/upload/events.ts'
import { evolveUpload, initialUploadState, type UploadState } from '../domain/upload/state.ts'
import type { Decider } from './handle-command.ts'

export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: initialAccountState,
  evolve: evolveAccount,
  decide: decideAccount,
  snapshots: true,
}

export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob,
}

export const uploadDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: initialUploadState,
  evolve: evolveUpload,
  decide: decideUpload,
}

export const paymentDecider: Decider<PaymentState, PaymentCommand, PaymentEvent> = {
  initialState: initialPaymentState,
  evolve: evolvePayment,
  decide: decidePayment,
}

export const identityClaimDecider: Decider<IdentityClaimState, IdentityClaimCommand, IdentityClaimEvent> = {
  initialState: initialIdentityClaimState,
  evolve: evolveIdentityClaim,
  decide: decideIdentityClaim,
}

export const invitationDecider: Decider<InvitationState, InvitationCommand, InvitationEvent> = {
  initialState: initialInvitationState,
  evolve: evolveInvitation,
  decide: decideInvitation,
}

export const signUpLimitDecider: Decider<SignUpLimitState, SignUpLimitCommand, SignUpLimitEvent> = {
  initialState: initialSignUpLimitState,
  evolve: evolveSignUpLimit,
  decide: decideSignUpLimit,
}
