// The payment processor: hosted checkout and customer portal pages, and the signed events by which
// it confirms payments. Credits are granted only on those confirmations, never by a checkout call.

export interface CatalogItem {
  id: string
  kind: 'pack' | 'bundle'
  name: string
  priceUsd: number
  /** Per purchase (pack) or per paid month (bundle). */
  credits: number
  terms: string | null
}

export interface CheckoutRequest {
  accountId: string
  customerId: string
  item: CatalogItem
  /** The client's request id: the processor de-duplicates on it too. */
  requestId: string
  successUrl: string
  cancelUrl: string
}

/** A processor event, verified and reduced to what the ledger needs. */
export type ProcessorEvent = { eventId: string } & (
  | {
      kind: 'payment_succeeded'
      accountId: string
      itemId: string
      paymentRef: string
      amountCents: number
      /** For a bundle: the end of the paid period (ms); its credits last one more month. */
      periodEnd: number | null
    }
  | {
      kind: 'subscription_changed'
      accountId: string
      itemId: string
      status: string
      renewsAt: number | null
      endsAt: number | null
    }
  | { kind: 'dispute_opened'; disputeId: string; paymentRef: string }
  | { kind: 'dispute_closed'; disputeId: string; paymentRef: string; outcome: 'won' | 'lost' }
  | { kind: 'refunded'; paymentRef: string; amountCents: number; amountRefundedCents: number }
  | { kind: 'ignored'; type: string }
)

export interface PaymentProcessor {
  /** The processor's customer for an account (created once). */
  createCustomer(accountId: string, email: string | null): Promise<string>
  createCheckout(request: CheckoutRequest): Promise<{ sessionId: string; url: string }>
  createPortal(customerId: string, returnUrl: string): Promise<{ url: string }>
  /** Verifies the signature over the raw body; throws on a bad one. */
  parseWebhook(rawBody: Buffer, signature: string): ProcessorEvent
}
