// Billing through Stripe: checkout and portal against stripe-mock, payment webhooks built from
// stripe-mock's fixtures of the pinned API version and signed as Stripe signs them. Credits come
// only from confirmations; replays grant nothing twice; a dispute freezes, a lost one claws back,
// and the auditor still passes. (The payment edge cases are in payments.e2e.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { audit } from '../../projections/audit.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import {
  type StripeApi,
  StripeFixtures,
  type StripeObject,
  startStripeApi,
} from '../support/stripe-fixtures.ts'
import { startStripeMock } from '../support/stripe-mock.ts'

const webhookSecret = 'whsec_test_secret_for_kiln'
const mock = await startStripeMock()
peerReady(
  'billing',
  !mock && 'stripe-mock is not installed (go install github.com/stripe/stripe-mock@latest)',
)

let sequence = 0
const stripeEvent = (type: string, object: StripeObject, id = `evt_test_${++sequence}`) => ({
  type,
  object,
  id,
})

describe.skipIf(!mock)('billing with Stripe', () => {
  let service: TestService
  let ada: TestAccount
  const request_id = () => crypto.randomUUID()

  let api: StripeApi
  let stripe: StripeFixtures
  const deliver = async (event: ReturnType<typeof stripeEvent>, secret = webhookSecret) => {
    const { payload, signature } = stripe.signed(
      await stripe.event(event.type, event.object, event.id),
      secret,
    )
    return fetch(`${service.baseUrl}/v1/billing/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    })
  }
  const billing = async () =>
    (await (await ada.request('/v1/billing')).json()) as {
      balance: number
      frozen: boolean
      portal: boolean
      lots: { kind: string; remaining: number }[]
      entries: { kind: string; amount: number }[]
      subscription: unknown
    }
  const paidCheckout = (paymentIntent: string, item = 'pack_500') =>
    stripeEvent('checkout.session.completed', {
      id: `cs_${paymentIntent}`,
      object: 'checkout.session',
      mode: 'payment',
      payment_status: 'paid',
      payment_intent: paymentIntent,
      amount_total: 500,
      client_reference_id: ada.accountId,
      metadata: { account_id: ada.accountId, item },
    })

  beforeAll(async () => {
    api = await startStripeApi(mock!.url)
    stripe = new StripeFixtures(mock!.url, webhookSecret)
    service = await startTestService({
      stripe: { secretKey: 'sk_test_123', webhookSecret, apiBase: api.url },
    })
    ada = await service.account({ credits: 10, login: 'ada' })
  })
  afterAll(async () => {
    await service?.close()
    await api?.stop()
    await mock?.stop()
  })

  it('the catalog is available with packs and bundles', async () => {
    const catalog = (await (await ada.request('/v1/billing/catalog')).json()) as {
      available: boolean
      items: { kind: string }[]
    }
    expect(catalog.available).toBe(true)
    expect(new Set(catalog.items.map((i) => i.kind))).toEqual(new Set(['pack', 'bundle']))
  })

  it('checkout: console only; a hosted URL; the same request_id returns the same checkout; grants nothing by itself', async () => {
    const body = { item: 'pack_500', request_id: request_id() }
    expect((await ada.request('/v1/billing/checkout', { method: 'POST', json: body })).status).toBe(403)
    const first = await ada.request('/v1/billing/checkout', {
      method: 'POST',
      json: body,
      token: ada.consoleToken,
    })
    expect(first.status).toBe(200)
    const { url } = (await first.json()) as { url: string }
    expect(url).toMatch(/^https?:\/\//)
    const again = (await (
      await ada.request('/v1/billing/checkout', { method: 'POST', json: body, token: ada.consoleToken })
    ).json()) as { url: string }
    expect(again.url).toBe(url)
    expect((await billing()).balance).toBe(10)
    const unknown = await ada.request('/v1/billing/checkout', {
      method: 'POST',
      json: { item: 'nope', request_id: request_id() },
      token: ada.consoleToken,
    })
    expect(unknown.status).toBe(400)
  })

  it('the portal is closed (409) until the first purchase', async () => {
    const response = await ada.request('/v1/billing/portal', { method: 'POST', token: ada.consoleToken })
    expect(response.status).toBe(409)
  })

  it('a paid checkout grants a pack lot once, lifts the pre-purchase quota, and opens the portal', async () => {
    const before = (await (await ada.request('/v1/me')).json()) as {
      limits: { tools: Record<string, { jobs_per_day: number }> }
    }
    expect(before.limits.tools.create_image!.jobs_per_day).toBe(3)
    const event = paidCheckout('pi_pack_1')
    const delivered = await deliver(event)
    expect(await delivered.json()).toEqual({ received: true, duplicate: false })
    const replay = await deliver(event)
    expect(await replay.json()).toEqual({ received: true, duplicate: true })
    const after = await billing()
    expect(after.balance).toBe(510)
    expect(after.lots.filter((l) => l.kind === 'pack')).toHaveLength(1)
    expect(after.portal).toBe(true)
    const me = (await (await ada.request('/v1/me')).json()) as {
      limits: { tools: Record<string, { jobs_per_day: number }> }
    }
    expect(me.limits.tools.create_image!.jobs_per_day).toBe(20)
    const portal = await ada.request('/v1/billing/portal', { method: 'POST', token: ada.consoleToken })
    expect(portal.status).toBe(200)
  })

  it('refuses a webhook with a bad signature', async () => {
    const response = await deliver(paidCheckout('pi_forged'), 'whsec_wrong')
    expect(response.status).toBe(400)
    expect((await billing()).balance).toBe(510)
  })

  it('a paid bundle invoice grants a subscription lot; subscription changes show in Billing', async () => {
    const metadata = { account_id: ada.accountId, item: 'bundle_monthly_1500' }
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400
    await deliver(
      stripeEvent('customer.subscription.created', {
        id: 'sub_1',
        object: 'subscription',
        status: 'active',
        metadata,
        cancel_at_period_end: false,
        items: { data: [{ current_period_end: periodEnd }] },
      }),
    )
    // On the pinned API version an invoice names no payment intent; its InvoicePayment does.
    const invoice = await stripe.invoice({
      id: 'in_1',
      status: 'paid',
      amount_paid: 1200,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata, subscription: 'sub_1' },
      },
      lines: {
        object: 'list',
        has_more: false,
        url: '/v1/invoices/in_1/lines',
        data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }],
      },
    })
    api.invoices.set('in_1', invoice)
    api.invoicePayments.set('in_1', [
      await stripe.invoicePayment({
        id: 'inpay_1',
        invoice: 'in_1',
        status: 'paid',
        amount_paid: 1200,
        amount_requested: 1200,
        currency: 'usd',
        payment: { type: 'payment_intent', payment_intent: 'pi_bundle_1' },
      }),
    ])
    await deliver(stripeEvent('invoice.paid', invoice))
    const after = await billing()
    expect(after.balance).toBe(2010)
    expect(after.subscription).toMatchObject({ plan: 'bundle_monthly_1500', status: 'active', ends_at: null })
    await deliver(
      stripeEvent('customer.subscription.updated', {
        id: 'sub_1',
        object: 'subscription',
        status: 'active',
        metadata,
        cancel_at_period_end: true,
        items: { data: [{ current_period_end: periodEnd }] },
      }),
    )
    expect((await billing()).subscription).toMatchObject({
      renews_at: null,
      ends_at: new Date(periodEnd * 1000).toISOString(),
    })
  })

  it('a dispute freezes the account (no jobs, no purchases); lost, it claws back what remained; the auditor passes', async () => {
    const opened = stripeEvent('charge.dispute.created', {
      id: 'dp_1',
      object: 'dispute',
      payment_intent: 'pi_pack_1',
      charge: 'ch_1',
      status: 'needs_response',
    })
    await deliver(opened)
    expect((await billing()).frozen).toBe(true)
    const job = await ada.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: {}, idempotency_key: 'frozen-job' },
    })
    expect(job.status).toBe(403)
    const checkout = await ada.request('/v1/billing/checkout', {
      method: 'POST',
      json: { item: 'pack_500', request_id: request_id() },
      token: ada.consoleToken,
    })
    expect(checkout.status).toBe(403)

    await deliver(
      stripeEvent('charge.dispute.closed', {
        id: 'dp_1',
        object: 'dispute',
        payment_intent: 'pi_pack_1',
        charge: 'ch_1',
        status: 'lost',
      }),
    )
    const after = await billing()
    expect(after.frozen).toBe(false)
    expect(after.entries[0]).toMatchObject({ kind: 'clawback', amount: 500 })
    expect(after.balance).toBe(1510)

    const report = await audit(service.services.ctx.store)
    expect(report.violations).toEqual([])
    expect(report.ok).toBe(true)
  })

  it('a refund claws back its share of the credits, once', async () => {
    await deliver(paidCheckout('pi_pack_2'))
    expect((await billing()).balance).toBe(2010)
    const refund = stripeEvent('charge.refunded', {
      id: 'ch_2',
      object: 'charge',
      payment_intent: 'pi_pack_2',
      amount: 500,
      amount_refunded: 250,
    })
    await deliver(refund)
    await deliver(
      stripeEvent('charge.refunded', {
        id: 'ch_2',
        object: 'charge',
        payment_intent: 'pi_pack_2',
        amount: 500,
        amount_refunded: 250,
      }),
    )
    expect((await billing()).balance).toBe(1760)
    const report = await audit(service.services.ctx.store)
    expect(report.ok).toBe(true)
  })
})
