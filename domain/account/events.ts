// Everything that happens to an account: money (lots and ledger entries), admission of jobs, holds, keys.
// Ledger events (grant, charge, refund, expire, clawback) carry a hash chain: `hash` covers the entry
// and the hash of the account's previous ledger event, so nothing can be changed or removed unseen.

export type LotKind = 'signup' | 'pack' | 'subscription' | 'adjustment'
export type LedgerKind = 'grant' | 'charge' | 'refund' | 'expire' | 'clawback'
/** How a console session was opened: an operator's console token, a passkey or a provider. */
export type SignInMethod = 'console_token' | 'passkey' | 'github' | `oidc:${string}`
/** Who vouches for a person: GitHub, a configured OpenID provider (`oidc:<id>`), or a passkey. */
export type IdentityProvider = 'passkey' | 'github' | `oidc:${string}`
export type JobOutcome = 'succeeded' | 'failed' | 'canceled'
/**
 * Why a job's charge was refused: the balance could not pay the measured price, or the admission had
 * already been released (the housekeeper gave up on it as orphaned before its job was recorded), so
 * the job has no slot and no hold left and must not run.
 */
export type ChargeDeclineReason = 'insufficient_credits' | 'admission_released'

export interface Allocation {
  lotId: string
  amount: number
}

interface Chained {
  prevHash: string
  hash: string
}

export type AccountEvent =
  | { type: 'AccountOpened'; data: { accountId: string; login: string; email: string | null; at: string } }
  | {
      type: 'CreditsGranted'
      data: Chained & {
        accountId: string
        lotId: string
        lotKind: LotKind
        credits: number
        expiresAt: string
        reason: string
        /** The processor's payment this lot came from; clawbacks name it. */
        paymentRef: string | null
        at: string
      }
    }
  | {
      type: 'JobAdmitted'
      data: {
        accountId: string
        jobId: string
        tool: string
        idempotencyKey: string | null
        requestHash: string | null
        /** Credits held for the job until its exact price is known (the tool's smallest price). */
        hold: number
        at: string
      }
    }
  | {
      type: 'JobCharged'
      data: Chained & {
        accountId: string
        jobId: string
        tool: string
        units: number
        amount: number
        allocations: Allocation[]
        at: string
      }
    }
  | {
      type: 'JobChargeDeclined'
      data: {
        accountId: string
        jobId: string
        tool: string
        price: number
        available: number
        /** Absent on declines recorded before admissions could be released first (all insufficient_credits). */
        reason?: ChargeDeclineReason
        at: string
      }
    }
  | {
      type: 'JobRefunded'
      data: Chained & {
        accountId: string
        jobId: string
        tool: string
        amount: number
        allocations: Allocation[]
        at: string
      }
    }
  | { type: 'JobReleased'; data: { accountId: string; jobId: string; outcome: JobOutcome; at: string } }
  | {
      type: 'JobForgotten'
      data: { accountId: string; jobId: string; idempotencyKey: string | null; at: string }
    }
  | { type: 'LotExpired'; data: Chained & { accountId: string; lotId: string; amount: number; at: string } }
  | {
      type: 'CreditsClawedBack'
      data: Chained & {
        accountId: string
        lotId: string
        amount: number
        /** The payment whose credits are taken back. */
        reverses: string
        reason: string
        at: string
      }
    }
  | { type: 'AccountFrozen'; data: { accountId: string; disputeId: string; at: string } }
  | { type: 'AccountUnfrozen'; data: { accountId: string; disputeId: string; at: string } }
  | { type: 'AccountDisabled'; data: { accountId: string; reason: string; at: string } }
  | { type: 'AccountEnabled'; data: { accountId: string; at: string } }
  | {
      type: 'ApiKeyCreated'
      data: { accountId: string; keyId: string; name: string; prefix: string; secretHash: string; at: string }
    }
  | { type: 'ApiKeyRevoked'; data: { accountId: string; keyId: string; at: string } }
  | {
      type: 'ConsoleTokenIssued'
      data: {
        accountId: string
        tokenId: string
        prefix: string
        secretHash: string
        /** When the token stops working; absent on tokens issued before tokens expired. */
        expiresAt?: string | null
        at: string
      }
    }
  | { type: 'ConsoleTokenRevoked'; data: { accountId: string; tokenId: string; at: string } }
  | {
      /** A person signed in to the console; the session itself lives in the read store. */
      type: 'SignedIn'
      data: { accountId: string; method: SignInMethod; sessionRef: string; at: string }
    }
  | {
      /** A provider's account (by its stable subject id) now signs in to this account. */
      type: 'IdentityLinked'
      data: { accountId: string; provider: IdentityProvider; subject: string; at: string }
    }
  | {
      /** A passkey now signs in to this account: what verifying its later assertions needs. */
      type: 'PasskeyRegistered'
      data: {
        accountId: string
        credentialId: string
        /** The COSE public key, base64url. */
        publicKey: string
        counter: number
        transports: string[]
        at: string
      }
    }
  | {
      /** A passkey signed in; its signature counter as the authenticator reported it. */
      type: 'PasskeyUsed'
      data: { accountId: string; credentialId: string; counter: number; at: string }
    }
  | {
      type: 'SubscriptionUpdated'
      data: {
        accountId: string
        plan: string
        status: string
        renewsAt: string | null
        endsAt: string | null
        at: string
      }
    }
  | { type: 'PaymentCustomerLinked'; data: { accountId: string; customerId: string; at: string } }
  | {
      type: 'CheckoutStarted'
      data: { accountId: string; requestId: string; item: string; sessionId: string; url: string; at: string }
    }

export type AccountEventType = AccountEvent['type']

export const ledgerEventTypes = {
  CreditsGranted: 'grant',
  JobCharged: 'charge',
  JobRefunded: 'refund',
  LotExpired: 'expire',
  CreditsClawedBack: 'clawback',
} as const satisfies Partial<Record<AccountEventType, LedgerKind>>

export type LedgerEvent = Extract<AccountEvent, { type: keyof typeof ledgerEventTypes }>

export const isLedgerEvent = (event: { type: string }): event is LedgerEvent => event.type in ledgerEventTypes

export const accountStream = (accountId: string) => `account-${accountId}`
