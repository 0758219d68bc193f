// What the auditor reports.

export type Check =
  | 'unique-event-ids'
  | 'contiguous-revisions'
  | 'hash-chain'
  | 'lot-conservation'
  | 'non-negative'
  | 'balance'
  | 'spending-order'
  | 'lot-validity'
  | 'single-expiry'
  | 'charge-has-admission'
  | 'single-charge'
  | 'refund-within-charge'
  | 'clawback'
  | 'single-grant-per-payment'
  | 'read-model'

export interface Violation {
  check: Check
  stream: string
  /** Global position of the offending event, when one event is to blame. */
  position: number | null
  message: string
}

export type Report = (check: Check, stream: string, position: number | null, message: string) => void
