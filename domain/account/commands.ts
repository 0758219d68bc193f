import type { Command } from '../command.ts'
import type { IdentityProvider, JobOutcome, LotKind, OAuthRevocationReason, SignInMethod } from './events.ts'

/** What admission needs to know of the tool (from the catalog and the account's plan). */
export interface ToolPolicy {
  id: string
  minPrice: number
  jobsPerDay: number
  jobsPerDayBeforePurchase: number
}

export interface AdmissionPolicy {
  maxActiveJobs: number
  /** How long a deleted job's idempotency key keeps answering job_deleted. */
  forgottenKeyMs: number
}

export interface KeyPolicy {
  maxActiveKeys: number
  maxNewKeysPerDay: number
}

/** What the account must reflect of one payment of the processor (domain/payment/settlement.ts). */
export interface PaymentSettlement {
  paymentRef: string
  /** The lot the payment bought; kind, expiry and reason are null on links from before they were kept. */
  lot: {
    lotId: string
    kind: LotKind | null
    credits: number
    expiresAt: number | null
    reason: string | null
  }
  /** The credits of this payment that must have been clawed back, in total, once this is applied. */
  clawBackTarget: number
  clawBackReason: string
  /** The payment's disputes: an open one holds the account; a closed one no longer does, ever. */
  disputes: { disputeId: string; open: boolean }[]
}

export type AccountCommand =
  | Command<
      'OpenAccount',
      {
        accountId: string
        login: string
        email: string | null
        signupLotId: string
        signupCredits: number
        signupExpiresAt: number
      }
    >
  | Command<
      'GrantCredits',
      {
        lotId: string
        kind: LotKind
        credits: number
        expiresAt: number
        reason: string
        paymentRef: string | null
      }
    >
  | Command<
      'AdmitJob',
      {
        jobId: string
        tool: ToolPolicy
        idempotencyKey: string | null
        requestHash: string | null
        policy: AdmissionPolicy
      }
    >
  | Command<'ChargeJob', { jobId: string; units: number; price: number }>
  /** `returned`: credits of a succeeded job's charge that go back (work charged but not done). */
  | Command<'FinishJob', { jobId: string; outcome: JobOutcome; returned?: number }>
  /** The housekeeper gives up an admission whose job was never recorded (see decide.ts). */
  | Command<'ReleaseOrphanedAdmission', { jobId: string }>
  | Command<'ForgetJob', { jobId: string }>
  | Command<'ExpireLots', Record<never, never>>
  | Command<'ClawBack', { paymentRef: string; amount: number | null; reason: string }>
  | Command<'SettlePayment', PaymentSettlement>
  | Command<'Freeze', { disputeId: string }>
  | Command<'Unfreeze', { disputeId: string }>
  | Command<'Disable', { reason: string }>
  | Command<'Enable', Record<never, never>>
  | Command<
      'CreateApiKey',
      { keyId: string; name: string; prefix: string; secretHash: string; policy: KeyPolicy }
    >
  | Command<'RevokeApiKey', { keyId: string }>
  | Command<'IssueConsoleToken', { tokenId: string; prefix: string; secretHash: string; expiresAt: number }>
  | Command<'RevokeConsoleToken', { tokenId: string }>
  | Command<'RecordSignIn', { method: SignInMethod; sessionRef: string }>
  | Command<'LinkIdentity', { provider: IdentityProvider; subject: string }>
  | Command<
      'RegisterPasskey',
      { credentialId: string; publicKey: string; counter: number; transports: string[] }
    >
  | Command<'UsePasskey', { credentialId: string; counter: number }>
  | Command<
      'ConnectOAuthApp',
      { grantId: string; clientId: string; clientName: string; scopes: string[]; resource: string }
    >
  | Command<'DisconnectOAuthApp', { grantId: string; reason: OAuthRevocationReason }>
  | Command<
      'UpdateSubscription',
      { plan: string; status: string; renewsAt: string | null; endsAt: string | null }
    >
  | Command<'LinkPaymentCustomer', { customerId: string }>
  | Command<'StartCheckout', { requestId: string; item: string; sessionId: string; url: string }>
