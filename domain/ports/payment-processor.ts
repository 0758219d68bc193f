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

/** One payment that went through: the processor's id for it, and what it actually collected. */
export interface PaidPayment {
  /** The payment intent (or, without one, the charge or payment record): what disputes and refunds name. */
  paymentRef: string
  amountCents: number
}

/** Whose an invoice is: the account and catalog item it bills, and the end of its paid period (ms). */
export interface InvoiceOwner {
  accountId: string
  itemId: string
  periodEnd: number | null
}

/** A processor event, verified and reduced to what the ledger needs. */
export type ProcessorEvent = { eventId: string } & (
  | {
      /** A one-off purchase (a pack's checkout): one payment. */
      kind: 'payment_succeeded'
      accountId: string
      itemId: string
      payment: PaidPayment
    }
  | {
      /** A bundle's invoice is paid; what paid it is looked up (invoicePayments). */
      kind: 'invoice_paid'
      invoiceId: string
      owner: InvoiceOwner
    }
  | {
      /** One payment towards an invoice; whose invoice it is is looked up (invoiceOwner). */
      kind: 'invoice_payment_paid'
      invoiceId: string
      payment: PaidPayment
    }
  | {
      kind: 'subscription_changed'
      accountId: string
      itemId: string
      status: string
      renewsAt: number | null
      endsAt: number | null
    }
  | { kind: 'dispute'; disputeId: string; paymentRef: string; status: 'open' | 'won' | 'lost' }
  | {
      /** Money returned: a charge's running total (chargeId) or one refund (refundId); see domain/payment. */
      kind: 'refunded'
      paymentRef: string
      chargeId: string | null
      refundId: string | null
      cents: number
    }
  | { kind: 'ignored'; type: string }
)

export interface PaymentProcessor {
  /** The processor's customer for an account (created once). */
  createCustomer(accountId: string, email: string | null): Promise<string>
  createCheckout(request: CheckoutRequest): Promise<{ sessionId: string; url: string }>
  createPortal(customerId: string, returnUrl: string): Promise<{ url: string }>
  /** Verifies the signature over the raw body; throws on a bad one. */
  parseWebhook(rawBody: Buffer, signature: string): ProcessorEvent
  /** The payments that paid an invoice, each with what it collected (none for a $0 invoice). */
  invoicePayments(invoiceId: string): Promise<PaidPayment[]>
  /** Whose an invoice is; null when it bills nothing of this service's catalog. */
  invoiceOwner(invoiceId: string): Promise<InvoiceOwner | null>
}
