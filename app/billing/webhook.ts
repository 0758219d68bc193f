// Payment confirmations from the processor, applied to the ledger. Each processor event is handled
// once: its id names a stream that is written last, so a replay finds it and does nothing, and a
// crash half-way is retried by the processor onto steps that are each idempotent.
//
// Every fact about a payment (paid, disputed, refunded) is first recorded in the payment's own
// stream, keyed by the id disputes and refunds name (the payment intent). The account is then
// brought in line with everything known of that payment in one decision (SettlePayment). So a
// payment reported by two events grants once, and a dispute or refund that arrives before the
// payment's grant takes effect when the grant lands.
import { createHash } from 'node:crypto'
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import type { PaymentCommand } from '../../domain/payment/decide.ts'
import { paymentStream, webhookStream } from '../../domain/payment/events.ts'
import { settlementOf } from '../../domain/payment/settlement.ts'
import { WrongExpectedVersionError } from '../../domain/ports/event-store.ts'
import type {
  CatalogItem,
  InvoiceOwner,
  PaidPayment,
  PaymentProcessor,
  ProcessorEvent,
} from '../../domain/ports/payment-processor.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider, paymentDecider } from '../deciders.ts'
import { deterministicEventId } from '../event-ids.ts'
import { handleCommand, readState } from '../handle-command.ts'
import { creditsPaidFor, lotExpiry } from './catalog.ts'

/** One lot per payment, whichever event reports it. */
const lotIdFor = (paymentRef: string) =>
  `lot_${createHash('sha256').update(`payment\0${paymentRef}`).digest('hex').slice(0, 20)}`

async function appendOnce(
  ctx: ServiceContext,
  stream: string,
  type: string,
  data: Record<string, unknown>,
): Promise<number> {
  try {
    const { position } = await ctx.store.append(
      stream,
      [{ id: deterministicEventId(stream, type, data), type, data }],
      'no_stream',
    )
    return position
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return 0
    throw error
  }
}

/** Applies everything known of the payment to its account; nothing until the payment is linked. */
async function settle(ctx: ServiceContext, paymentRef: string): Promise<number> {
  const { state } = await readState(ctx.store, paymentStream(paymentRef), paymentDecider)
  const settlement = settlementOf(paymentRef, state)
  if (!settlement || !state.link) return 0
  const { position } = await handleCommand(ctx.store, accountStream(state.link.accountId), accountDecider, {
    type: 'SettlePayment',
    data: { ...settlement, now: ctx.now() },
  })
  return position
}

async function record(ctx: ServiceContext, command: PaymentCommand): Promise<number> {
  await handleCommand(ctx.store, paymentStream(command.data.paymentRef), paymentDecider, command)
  return settle(ctx, command.data.paymentRef)
}

/** Links a payment to the lot it buys, sized by what it collected, and settles it. */
async function grantPayment(
  ctx: ServiceContext,
  catalog: CatalogItem[],
  owner: InvoiceOwner,
  payment: PaidPayment,
): Promise<number> {
  const item = catalog.find((i) => i.id === owner.itemId)
  if (!item) throw new DomainError('invalid_request', `Payment for unknown catalog item ${owner.itemId}.`)
  const credits = creditsPaidFor(item, payment.amountCents)
  if (credits === 0) return 0
  const now = ctx.now()
  return record(ctx, {
    type: 'LinkPayment',
    data: {
      paymentRef: payment.paymentRef,
      accountId: owner.accountId,
      lotId: lotIdFor(payment.paymentRef),
      lotKind: item.kind === 'pack' ? 'pack' : 'subscription',
      credits,
      expiresAt: lotExpiry(item, now, owner.periodEnd),
      reason: `${item.kind} ${item.id}`,
      amountCents: payment.amountCents,
      now,
    },
  })
}

/** A question to the processor; when it cannot answer, the webhook answers 503 and is retried. */
async function ask<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question()
  } catch {
    throw new DomainError('payments_unavailable', 'The payment processor did not answer; retry the event.', {
      retryAfterSeconds: 30,
    })
  }
}

async function apply(
  ctx: ServiceContext,
  processor: PaymentProcessor,
  catalog: CatalogItem[],
  event: ProcessorEvent,
): Promise<number> {
  const now = ctx.now()
  switch (event.kind) {
    case 'payment_succeeded':
      return grantPayment(
        ctx,
        catalog,
        { accountId: event.accountId, itemId: event.itemId, periodEnd: null },
        event.payment,
      )
    case 'invoice_paid': {
      // A $0 invoice (a full discount, or paid from the customer balance) has no payment: no grant.
      const payments = await ask(() => processor.invoicePayments(event.invoiceId))
      let position = 0
      for (const payment of payments)
        position = Math.max(position, await grantPayment(ctx, catalog, event.owner, payment))
      return position
    }
    case 'invoice_payment_paid': {
      const owner = await ask(() => processor.invoiceOwner(event.invoiceId))
      return owner ? grantPayment(ctx, catalog, owner, event.payment) : 0
    }
    case 'subscription_changed': {
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
      const { position } = await handleCommand(ctx.store, accountStream(event.accountId), accountDecider, {
        type: 'UpdateSubscription',
        data: {
          plan: event.itemId,
          status: event.status,
          renewsAt: iso(event.renewsAt),
          endsAt: iso(event.endsAt),
          now,
        },
      })
      return position
    }
    case 'dispute':
      return record(ctx, {
        type: 'RecordDispute',
        data: { paymentRef: event.paymentRef, disputeId: event.disputeId, status: event.status, now },
      })
    case 'refunded':
      return record(ctx, {
        type: 'RecordRefund',
        data: {
          paymentRef: event.paymentRef,
          chargeId: event.chargeId,
          refundId: event.refundId,
          cents: event.cents,
          now,
        },
      })
    case 'ignored':
      return 0
  }
}

export async function handleProcessorEvent(
  ctx: ServiceContext,
  catalog: CatalogItem[],
  event: ProcessorEvent,
): Promise<{ duplicate: boolean; position: number }> {
  const processor = ctx.payments
  if (!processor) throw new DomainError('payments_unavailable')
  if ((await ctx.store.readStream(webhookStream(event.eventId))).length > 0)
    return { duplicate: true, position: 0 }
  const position = await apply(ctx, processor, catalog, event)
  const recorded = await appendOnce(ctx, webhookStream(event.eventId), 'WebhookProcessed', {
    eventId: event.eventId,
    kind: event.kind,
    at: new Date(ctx.now()).toISOString(),
  })
  return { duplicate: false, position: Math.max(position, recorded) }
}
