// Checkout and portal. The same request_id returns the same checkout; a frozen account cannot buy;
// the portal opens once the account has bought.
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import type { CatalogItem } from '../../domain/ports/payment-processor.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider } from '../deciders.ts'
import { handleCommand, readState } from '../handle-command.ts'

function requirePayments(ctx: ServiceContext) {
  if (!ctx.payments)
    throw new DomainError('payments_unavailable', 'No payment processor is configured on this server.')
  return ctx.payments
}

export async function startCheckout(
  ctx: ServiceContext,
  catalog: CatalogItem[],
  accountId: string,
  itemId: string,
  requestId: string,
  consoleUrl: string,
) {
  const payments = requirePayments(ctx)
  const item = catalog.find((i) => i.id === itemId)
  if (!item)
    throw new DomainError('invalid_request', `No catalog item ${itemId}; GET /v1/billing/catalog lists them.`)
  const { state } = await readState(ctx.store, accountStream(accountId), accountDecider)
  if (state.disabled) throw new DomainError('account_disabled')
  if (state.openDisputes.size > 0)
    throw new DomainError(
      'account_frozen',
      'The account is frozen while a disputed payment is open; it cannot buy.',
    )
  const earlier = state.checkouts.get(requestId)
  if (earlier) {
    if (earlier.item !== itemId)
      throw new DomainError(
        'conflict',
        'This request_id started a checkout for another item; use a new request_id.',
      )
    return { url: earlier.url }
  }
  let customerId = state.customerId
  if (!customerId) {
    customerId = await payments.createCustomer(accountId, state.email)
    await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
      type: 'LinkPaymentCustomer',
      data: { customerId, now: ctx.now() },
    })
  }
  const session = await payments.createCheckout({
    accountId,
    customerId,
    item,
    requestId,
    successUrl: `${consoleUrl}?checkout=success`,
    cancelUrl: `${consoleUrl}?checkout=canceled`,
  })
  const { state: after } = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'StartCheckout',
    data: { requestId, item: itemId, sessionId: session.sessionId, url: session.url, now: ctx.now() },
  })
  return { url: after.checkouts.get(requestId)!.url }
}

export async function openPortal(ctx: ServiceContext, accountId: string, consoleUrl: string) {
  const payments = requirePayments(ctx)
  const { state } = await readState(ctx.store, accountStream(accountId), accountDecider)
  if (!state.purchased || !state.customerId)
    throw new DomainError('conflict', 'The customer portal opens after the first purchase.')
  return payments.createPortal(state.customerId, consoleUrl)
}
