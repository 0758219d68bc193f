// Stripe behind the payment processor port (the official `stripe` package), on the API version the
// SDK pins. Checkouts carry the account and catalog item in metadata, so the confirmations that come
// back by webhook name whose they are. On that version an invoice no longer names a payment intent:
// what paid it is a list of InvoicePayment objects (`invoice.payments`, `/v1/invoice_payments`),
// each naming its payment intent, which is what disputes and refunds name too.
import Stripe from 'stripe'
import type {
  CheckoutRequest,
  InvoiceOwner,
  PaidPayment,
  PaymentProcessor,
  ProcessorEvent,
} from '../../domain/ports/payment-processor.ts'

export interface StripeOptions {
  secretKey: string
  webhookSecret: string
  /** For stripe-mock in tests: http://127.0.0.1:PORT */
  apiBase?: string
}

const seconds = (value: number | null | undefined) => (typeof value === 'number' ? value * 1000 : null)
const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null)

export class StripePaymentProcessor implements PaymentProcessor {
  readonly #stripe: Stripe
  readonly #webhookSecret: string

  constructor({ secretKey, webhookSecret, apiBase }: StripeOptions) {
    const base = apiBase ? new URL(apiBase) : null
    this.#stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      ...(base
        ? {
            host: base.hostname,
            port: Number(base.port),
            protocol: base.protocol.replace(':', '') as 'http' | 'https',
          }
        : {}),
    })
    this.#webhookSecret = webhookSecret
  }

  async createCustomer(accountId: string, email: string | null): Promise<string> {
    const customer = await this.#stripe.customers.create(
      { metadata: { account_id: accountId }, ...(email ? { email } : {}) },
      { idempotencyKey: `customer-${accountId}` },
    )
    return customer.id
  }

  async createCheckout({ accountId, customerId, item, requestId, successUrl, cancelUrl }: CheckoutRequest) {
    const metadata = { account_id: accountId, item: item.id }
    const unitAmount = Math.round(item.priceUsd * 100)
    const session = await this.#stripe.checkout.sessions.create(
      item.kind === 'pack'
        ? {
            mode: 'payment',
            customer: customerId,
            client_reference_id: accountId,
            metadata,
            payment_intent_data: { metadata },
            line_items: [
              {
                quantity: 1,
                price_data: { currency: 'usd', unit_amount: unitAmount, product_data: { name: item.name } },
              },
            ],
            success_url: successUrl,
            cancel_url: cancelUrl,
          }
        : {
            mode: 'subscription',
            customer: customerId,
            client_reference_id: accountId,
            metadata,
            subscription_data: { metadata },
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: 'usd',
                  unit_amount: unitAmount,
                  recurring: { interval: 'month' },
                  product_data: { name: item.name },
                },
              },
            ],
            success_url: successUrl,
            cancel_url: cancelUrl,
          },
      { idempotencyKey: `checkout-${requestId}` },
    )
    if (!session.url) throw new Error('The processor returned a checkout without a URL.')
    return { sessionId: session.id, url: session.url }
  }

  async createPortal(customerId: string, returnUrl: string) {
    const session = await this.#stripe.billingPortal.sessions.create({
      customer: customerId,
      return_url: returnUrl,
    })
    return { url: session.url }
  }

  parseWebhook(rawBody: Buffer, signature: string): ProcessorEvent {
    const event = this.#stripe.webhooks.constructEvent(rawBody, signature, this.#webhookSecret)
    return toProcessorEvent(event)
  }

  async invoicePayments(invoiceId: string): Promise<PaidPayment[]> {
    const paid: PaidPayment[] = []
    for await (const payment of this.#stripe.invoicePayments.list({
      invoice: invoiceId,
      status: 'paid',
      limit: 100,
    })) {
      const counted = paidPayment(payment)
      if (counted) paid.push(counted)
    }
    return paid
  }

  async invoiceOwner(invoiceId: string): Promise<InvoiceOwner | null> {
    return ownerOfInvoice(await this.#stripe.invoices.retrieve(invoiceId))
  }
}

type Metadata = Record<string, string> | null | undefined

function fromMetadata(metadata: Metadata): { accountId: string; itemId: string } | null {
  return metadata?.account_id && metadata.item
    ? { accountId: metadata.account_id, itemId: metadata.item }
    : null
}

/** An InvoicePayment that collected money, named by what disputes and refunds will name. */
function paidPayment(payment: Stripe.InvoicePayment): PaidPayment | null {
  const paymentRef =
    idOf(payment.payment.payment_intent) ??
    idOf(payment.payment.charge) ??
    idOf(payment.payment.payment_record)
  const amountCents = payment.amount_paid ?? 0
  return payment.status === 'paid' && paymentRef && amountCents > 0 ? { paymentRef, amountCents } : null
}

function ownerOfInvoice(invoice: Stripe.Invoice): InvoiceOwner | null {
  const owner = fromMetadata(invoice.parent?.subscription_details?.metadata)
  if (!owner) return null
  return { ...owner, periodEnd: seconds(invoice.lines?.data?.[0]?.period?.end ?? invoice.period_end) }
}

/** Maps the Stripe events the ledger cares about; everything else is acknowledged and ignored. */
export function toProcessorEvent(event: Stripe.Event): ProcessorEvent {
  const eventId = event.id
  const ignored: ProcessorEvent = { eventId, kind: 'ignored', type: event.type }
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object
      const owner = fromMetadata(session.metadata)
      const paymentRef = idOf(session.payment_intent)
      // A session that collected nothing (a full discount: `no_payment_required`) buys nothing.
      if (session.mode !== 'payment' || session.payment_status !== 'paid' || !owner || !paymentRef)
        return ignored
      return {
        eventId,
        kind: 'payment_succeeded',
        ...owner,
        payment: { paymentRef, amountCents: session.amount_total ?? 0 },
      }
    }
    case 'invoice.paid':
    case 'invoice.payment_succeeded': {
      const invoice = event.data.object
      const owner = ownerOfInvoice(invoice)
      return owner && invoice.id ? { eventId, kind: 'invoice_paid', invoiceId: invoice.id, owner } : ignored
    }
    case 'invoice_payment.paid': {
      const payment = event.data.object
      const paid = paidPayment(payment)
      const invoiceId = idOf(payment.invoice as string | { id: string })
      return paid && invoiceId ? { eventId, kind: 'invoice_payment_paid', invoiceId, payment: paid } : ignored
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object as Stripe.Subscription & { current_period_end?: number }
      const owner = fromMetadata(subscription.metadata)
      if (!owner) return ignored
      const periodEnd = seconds(
        subscription.items?.data?.[0]?.current_period_end ?? subscription.current_period_end,
      )
      const ended = event.type === 'customer.subscription.deleted' || subscription.status === 'canceled'
      const endsAt = ended
        ? seconds(subscription.ended_at ?? subscription.canceled_at)
        : subscription.cancel_at_period_end
          ? periodEnd
          : seconds(subscription.cancel_at)
      return {
        eventId,
        kind: 'subscription_changed',
        ...owner,
        status: subscription.status,
        renewsAt: ended || subscription.cancel_at_period_end ? null : periodEnd,
        endsAt,
      }
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = event.data.object
      const paymentRef = idOf(dispute.payment_intent) ?? idOf(dispute.charge)
      if (!paymentRef) return ignored
      // A closed dispute that was not lost was won (or closed as a warning): the hold ends.
      const status =
        event.type === 'charge.dispute.created' ? 'open' : dispute.status === 'lost' ? 'lost' : 'won'
      return { eventId, kind: 'dispute', disputeId: dispute.id, paymentRef, status }
    }
    case 'charge.refunded': {
      const charge = event.data.object
      return {
        eventId,
        kind: 'refunded',
        paymentRef: idOf(charge.payment_intent) ?? charge.id,
        chargeId: charge.id,
        refundId: null,
        cents: charge.amount_refunded,
      }
    }
    case 'refund.created': {
      const refund = event.data.object
      const paymentRef = idOf(refund.payment_intent) ?? idOf(refund.charge)
      if (!paymentRef || refund.status === 'failed' || refund.status === 'canceled') return ignored
      return {
        eventId,
        kind: 'refunded',
        paymentRef,
        chargeId: null,
        refundId: refund.id,
        cents: refund.amount,
      }
    }
    default:
      return ignored
  }
}
