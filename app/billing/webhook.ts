// Payment confirmations from the processor, applied to the ledger. Each processor event is handled
// once: its id names a stream that is written last, so a replay finds it and does nothing, and a
// crash half-way is retried by the processor onto commands that are each idempotent (lot ids derive
// from the event id; freezes and clawbacks are bounded by the account's state).
import { createHash } from 'node:crypto'
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import { type PaymentEvent, paymentStream, webhookStream } from '../../domain/payment/events.ts'
import { WrongExpectedVersionError } from '../../domain/ports/event-store.ts'
import type { CatalogItem, ProcessorEvent } from '../../domain/ports/payment-processor.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider } from '../deciders.ts'
import { deterministicEventId } from '../event-ids.ts'
import { handleCommand, readState } from '../handle-command.ts'
import { lotExpiry } from './catalog.ts'

const lotIdFor = (eventId: string) => `lot_${createHash('sha256').update(eventId).digest('hex').slice(0, 20)}`

async function paymentOf(ctx: ServiceContext, paymentRef: string): Promise<PaymentEvent['data'] | null> {
  const [linked] = await ctx.store.readStream(paymentStream(paymentRef))
  return linked ? (linked.data as PaymentEvent['data']) : null
}

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

async function apply(ctx: ServiceContext, catalog: CatalogItem[], event: ProcessorEvent): Promise<number> {
  const now = ctx.now()
  switch (event.kind) {
    case 'payment_succeeded': {
      const item = catalog.find((i) => i.id === event.itemId)
      if (!item) throw new DomainError('invalid_request', `Payment for unknown catalog item ${event.itemId}.`)
      const lotId = lotIdFor(event.eventId)
      const granted = await handleCommand(ctx.store, accountStream(event.accountId), accountDecider, {
        type: 'GrantCredits',
        data: {
          lotId,
          kind: item.kind === 'pack' ? 'pack' : 'subscription',
          credits: item.credits,
          expiresAt: lotExpiry(item, now, event.periodEnd),
          reason: `${item.kind} ${item.id}`,
          paymentRef: event.paymentRef,
          now,
        },
      })
      await appendOnce(ctx, paymentStream(event.paymentRef), 'PaymentLinked', {
        paymentRef: event.paymentRef,
        accountId: event.accountId,
        lotId,
        credits: item.credits,
        amountCents: event.amountCents,
        at: new Date(now).toISOString(),
      })
      return granted.position
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
    case 'dispute_opened': {
      const payment = await paymentOf(ctx, event.paymentRef)
      if (!payment) return 0
      const { position } = await handleCommand(ctx.store, accountStream(payment.accountId), accountDecider, {
        type: 'Freeze',
        data: { disputeId: event.disputeId, now },
      })
      return position
    }
    case 'dispute_closed': {
      const payment = await paymentOf(ctx, event.paymentRef)
      if (!payment) return 0
      const stream = accountStream(payment.accountId)
      if (event.outcome === 'lost') {
        await handleCommand(ctx.store, stream, accountDecider, {
          type: 'ClawBack',
          data: {
            paymentRef: event.paymentRef,
            amount: null,
            reason: `dispute ${event.disputeId} lost`,
            now,
          },
        })
      }
      const { position } = await handleCommand(ctx.store, stream, accountDecider, {
        type: 'Unfreeze',
        data: { disputeId: event.disputeId, now },
      })
      return position
    }
    case 'refunded': {
      const payment = await paymentOf(ctx, event.paymentRef)
      if (!payment || event.amountCents <= 0) return 0
      const stream = accountStream(payment.accountId)
      const { state } = await readState(ctx.store, stream, accountDecider)
      const target = Math.min(
        payment.credits,
        Math.round((payment.credits * event.amountRefundedCents) / event.amountCents),
      )
      const already = state.lots.get(payment.lotId)?.clawedBack ?? 0
      if (target <= already) return 0
      const { position } = await handleCommand(ctx.store, stream, accountDecider, {
        type: 'ClawBack',
        data: { paymentRef: event.paymentRef, amount: target - already, reason: 'payment refunded', now },
      })
      return position
    }
    case 'ignored':
      return 0
  }
}

export async function handleProcessorEvent(
  ctx: ServiceContext,
  catalog: CatalogItem[],
  event: ProcessorEvent,
): Promise<{ duplicate: boolean; position: number }> {
  if ((await ctx.store.readStream(webhookStream(event.eventId))).length > 0)
    return { duplicate: true, position: 0 }
  const position = await apply(ctx, catalog, event)
  const recorded = await appendOnce(ctx, webhookStream(event.eventId), 'WebhookProcessed', {
    eventId: event.eventId,
    kind: event.kind,
    at: new Date(ctx.now()).toISOString(),
  })
  return { duplicate: false, position: Math.max(position, recorded) }
}
