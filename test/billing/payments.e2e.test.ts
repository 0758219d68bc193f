// Issue 20 items 6 and 7: the money paths on the Stripe API version the SDK pins. Webhook payloads
// are stripe-mock's fixtures with the scenario's fields, signed as Stripe signs them; the service's
// own lookups (which payments paid an invoice, whose an invoice is) go through the SDK to a
// scenario-aware front of stripe-mock. Every scenario ends with a ledger the auditor proves.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { audit } from '../../projections/audit.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'
import {
  pinnedApiVersion,
  type StripeApi,
  StripeFixtures,
  type StripeObject,
  startStripeApi,
} from '../support/stripe-fixtures.ts'
import { startStripeMock } from '../support/stripe-mock.ts'

const webhookSecret = 'whsec_test_secret_for_kiln'
const mock = await startStripeMock()
peerReady(
  'payments',
  !mock && 'stripe-mock is not installed (go install github.com/stripe/stripe-mock@latest)',
)

const bundle = { id: 'bundle_monthly_1500', credits: 1500, cents: 1200 }
const pack = { id: 'pack_500', credits: 500, cents: 500 }
const day = 86_400

interface Billing {
  balance: number
  frozen: boolean
  lots: { kind: string; credits: number; remaining: number }[]
  entries: { kind: string; amount: number }[]
}

describe.skipIf(!mock)(`payments on Stripe API ${pinnedApiVersion}`, () => {
  let service: TestService
  let api: StripeApi
  let stripe: StripeFixtures
  let accounts = 0

  beforeAll(async () => {
    api = await startStripeApi(mock!.url)
    stripe = new StripeFixtures(mock!.url, webhookSecret)
    service = await startTestService({
      stripe: { secretKey: 'sk_test_123', webhookSecret, apiBase: api.url },
    })
  })
  afterAll(async () => {
    await service?.close()
    await api?.stop()
    await mock?.stop()
  })
  afterEach(async () => {
    const report = await audit(service.services.ctx.store)
    expect(report.violations).toEqual([])
  })

  const account = () => service.account({ credits: 0, login: `payer${++accounts}` })
  const billing = async (who: TestAccount) => (await (await who.request('/v1/billing')).json()) as Billing
  const owner = (who: TestAccount, item: string) => ({ account_id: who.accountId, item })

  async function post(event: StripeObject) {
    const { payload, signature } = stripe.signed(event)
    return fetch(`${service.baseUrl}/v1/billing/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    })
  }
  async function deliver(type: string, object: StripeObject) {
    const response = await post(await stripe.event(type, object))
    expect(response.status).toBe(200)
    return (await response.json()) as { received: boolean; duplicate: boolean }
  }

  /** A bundle invoice, paid by `payments` (InvoicePayment objects naming their payment intents). */
  async function paidInvoice(
    who: TestAccount,
    invoiceId: string,
    payments: { id: string; paymentIntent: string; cents: number }[],
    extra: StripeObject = {},
  ) {
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * day
    const base = await stripe.invoice({ id: invoiceId })
    const lines = base.lines as { data: StripeObject[] }
    const invoice = await stripe.invoice({
      id: invoiceId,
      status: 'paid',
      customer: 'cus_kiln',
      amount_due: payments.reduce((sum, p) => sum + p.cents, 0),
      amount_paid: payments.reduce((sum, p) => sum + p.cents, 0),
      amount_remaining: 0,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: owner(who, bundle.id), subscription: `sub_${invoiceId}` },
      },
      lines: {
        ...lines,
        data: [{ ...lines.data[0], period: { start: periodEnd - 30 * day, end: periodEnd } }],
      },
      ...extra,
    })
    const paid = await Promise.all(
      payments.map((p) =>
        stripe.invoicePayment({
          id: p.id,
          invoice: invoiceId,
          amount_paid: p.cents,
          amount_requested: p.cents,
          currency: 'usd',
          livemode: false,
          status: 'paid',
          payment: { type: 'payment_intent', payment_intent: p.paymentIntent },
          status_transitions: { canceled_at: null, paid_at: Math.floor(Date.now() / 1000) },
        }),
      ),
    )
    api.invoices.set(invoiceId, invoice)
    api.invoicePayments.set(invoiceId, paid)
    return { invoice, payments: paid }
  }

  const paidCheckout = (who: TestAccount, paymentIntent: string, amountTotal = pack.cents) =>
    stripe.checkoutSession({
      id: `cs_${paymentIntent}`,
      mode: 'payment',
      status: 'complete',
      payment_status: 'paid',
      payment_intent: paymentIntent,
      amount_subtotal: pack.cents,
      amount_total: amountTotal,
      currency: 'usd',
      client_reference_id: who.accountId,
      metadata: owner(who, pack.id),
    })

  const dispute = (id: string, paymentIntent: string, status: string) =>
    stripe.dispute({ id, payment_intent: paymentIntent, charge: `ch_${paymentIntent}`, status })

  describe('item 6: disputes and refunds find a bundle by its payment intent', () => {
    it("stripe-mock's objects carry every field the adapter reads, and an invoice no payment intent", async () => {
      const fieldsOf = async (path: string) => Object.keys(await stripe.object(path, {}))
      expect(await fieldsOf('invoices/in_x')).toEqual(
        expect.arrayContaining(['id', 'parent', 'lines', 'period_end', 'amount_paid']),
      )
      expect(await fieldsOf('invoices/in_x')).not.toContain('payment_intent')
      expect(await fieldsOf('invoice_payments/inpay_x')).toEqual(
        expect.arrayContaining(['invoice', 'payment', 'amount_paid', 'status']),
      )
      expect(await fieldsOf('disputes/dp_x')).toEqual(
        expect.arrayContaining(['payment_intent', 'charge', 'status']),
      )
      expect(await fieldsOf('refunds/re_x')).toEqual(
        expect.arrayContaining(['payment_intent', 'charge', 'amount', 'status']),
      )
      expect(await fieldsOf('charges/ch_x')).toEqual(
        expect.arrayContaining(['payment_intent', 'amount_refunded']),
      )
      expect(await fieldsOf('checkout/sessions/cs_x')).toEqual(
        expect.arrayContaining(['mode', 'payment_status', 'payment_intent', 'amount_total', 'metadata']),
      )
    })

    it('the pinned invoice names no payment intent; its InvoicePayment does, and the lot is linked to it', async () => {
      const ada = await account()
      const { invoice } = await paidInvoice(ada, 'in_ada_1', [
        { id: 'inpay_ada_1', paymentIntent: 'pi_ada_1', cents: bundle.cents },
      ])
      expect(invoice).not.toHaveProperty('payment_intent')
      await deliver('invoice.paid', invoice)
      expect(await billing(ada)).toMatchObject({
        balance: 1500,
        lots: [{ kind: 'subscription', credits: 1500 }],
      })

      await deliver('charge.dispute.created', await dispute('dp_ada_1', 'pi_ada_1', 'needs_response'))
      expect((await billing(ada)).frozen).toBe(true)
      await deliver('charge.dispute.closed', await dispute('dp_ada_1', 'pi_ada_1', 'lost'))
      const after = await billing(ada)
      expect(after).toMatchObject({ frozen: false, balance: 0 })
      expect(after.entries[0]).toMatchObject({ kind: 'clawback', amount: 1500 })
    })

    it('refunds by payment intent claw back their share; the same refund reported twice counts once', async () => {
      const bo = await account()
      const { invoice } = await paidInvoice(bo, 'in_bo_1', [
        { id: 'inpay_bo_1', paymentIntent: 'pi_bo_1', cents: bundle.cents },
      ])
      await deliver('invoice.paid', invoice)
      const refund = (id: string, cents: number) =>
        stripe.refund({
          id,
          payment_intent: 'pi_bo_1',
          charge: 'ch_bo_1',
          amount: cents,
          status: 'succeeded',
        })
      await deliver('refund.created', await refund('re_bo_1', 600))
      expect((await billing(bo)).balance).toBe(750)
      // The same refund as the charge reports it (a running total): nothing more.
      await deliver(
        'charge.refunded',
        await stripe.charge({ id: 'ch_bo_1', payment_intent: 'pi_bo_1', amount: 1200, amount_refunded: 600 }),
      )
      expect((await billing(bo)).balance).toBe(750)
      await deliver('refund.created', await refund('re_bo_2', 300))
      expect((await billing(bo)).balance).toBe(375)
    })
  })

  describe('item 7: grants follow what was paid, once per payment', () => {
    it('a $0 invoice grants nothing and lifts no pre-purchase quota', async () => {
      const cy = await account()
      const { invoice } = await paidInvoice(cy, 'in_cy_zero', [], {
        amount_due: 0,
        amount_paid: 0,
        total: 0,
        discounts: ['di_full'],
      })
      await deliver('invoice.paid', invoice)
      expect(await billing(cy)).toMatchObject({ balance: 0, lots: [] })
      const me = (await (await cy.request('/v1/me')).json()) as {
        limits: { tools: Record<string, { jobs_per_day: number }> }
      }
      expect(me.limits.tools.create_image?.jobs_per_day).toBe(3)
    })

    it('credits follow the amount collected: a coupon or the customer balance pays for fewer', async () => {
      const di = await account()
      await deliver('checkout.session.completed', await paidCheckout(di, 'pi_di_half', pack.cents / 2))
      expect((await billing(di)).balance).toBe(250)
      // Half the invoice came out of the customer balance: only the InvoicePayment's half buys credits.
      const { invoice } = await paidInvoice(
        di,
        'in_di_balance',
        [{ id: 'inpay_di_1', paymentIntent: 'pi_di_1', cents: bundle.cents / 2 }],
        { starting_balance: -600, ending_balance: 0 },
      )
      await deliver('invoice.paid', invoice)
      expect((await billing(di)).balance).toBe(250 + 750)
    })

    it('one payment reported by two different events grants once', async () => {
      const ed = await account()
      const { invoice, payments } = await paidInvoice(ed, 'in_ed_1', [
        { id: 'inpay_ed_1', paymentIntent: 'pi_ed_1', cents: bundle.cents },
      ])
      await deliver('invoice_payment.paid', payments[0]!)
      await deliver('invoice.paid', invoice)
      await deliver('invoice.payment_succeeded', invoice)
      const session = await paidCheckout(ed, 'pi_ed_pack')
      await deliver('checkout.session.completed', session)
      await deliver('checkout.session.async_payment_succeeded', session)
      const after = await billing(ed)
      expect(after.balance).toBe(1500 + 500)
      expect(after.lots.map((l) => l.kind).sort()).toEqual(['pack', 'subscription'])
    })

    it('an invoice paid in parts grants each part its share; a dispute takes back only its part', async () => {
      const fay = await account()
      const { invoice } = await paidInvoice(fay, 'in_fay_split', [
        { id: 'inpay_fay_1', paymentIntent: 'pi_fay_1', cents: 600 },
        { id: 'inpay_fay_2', paymentIntent: 'pi_fay_2', cents: 600 },
      ])
      await deliver('invoice.paid', invoice)
      expect((await billing(fay)).balance).toBe(1500)
      await deliver('charge.dispute.created', await dispute('dp_fay_1', 'pi_fay_1', 'needs_response'))
      await deliver('charge.dispute.closed', await dispute('dp_fay_1', 'pi_fay_1', 'lost'))
      expect(await billing(fay)).toMatchObject({ balance: 750, frozen: false })
    })

    it('a dispute that arrives before its grant holds the account once the grant lands', async () => {
      const gus = await account()
      await deliver('charge.dispute.created', await dispute('dp_gus_1', 'pi_gus_1', 'needs_response'))
      expect(await billing(gus)).toMatchObject({ frozen: false, balance: 0 })
      await deliver('checkout.session.completed', await paidCheckout(gus, 'pi_gus_1'))
      expect(await billing(gus)).toMatchObject({ frozen: true, balance: 500 })
      await deliver('charge.dispute.closed', await dispute('dp_gus_1', 'pi_gus_1', 'lost'))
      expect(await billing(gus)).toMatchObject({ frozen: false, balance: 0 })
    })

    it('a dispute opened and lost before its grant takes the credits back as they land, without a hold', async () => {
      const hal = await account()
      await deliver('charge.dispute.closed', await dispute('dp_hal_1', 'pi_hal_1', 'lost'))
      await deliver('charge.dispute.created', await dispute('dp_hal_1', 'pi_hal_1', 'needs_response'))
      await deliver('checkout.session.completed', await paidCheckout(hal, 'pi_hal_1'))
      const after = await billing(hal)
      expect(after).toMatchObject({ frozen: false, balance: 0 })
      expect(after.entries.map((e) => e.kind)).toEqual(['clawback', 'grant'])
    })

    it('when the processor cannot say what paid an invoice, the webhook answers 503 and its retry grants', async () => {
      const jo = await account()
      const { invoice } = await paidInvoice(jo, 'in_jo_1', [
        { id: 'inpay_jo_1', paymentIntent: 'pi_jo_1', cents: bundle.cents },
      ])
      const event = await stripe.event('invoice.paid', invoice)
      api.failing = true
      try {
        const refused = await post(event)
        expect(refused.status).toBe(503)
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
          'payments_unavailable',
        )
      } finally {
        api.failing = false
      }
      expect((await billing(jo)).balance).toBe(0)
      const retried = await post(event)
      expect(await retried.json()).toEqual({ received: true, duplicate: false })
      expect((await billing(jo)).balance).toBe(1500)
    })

    it('a refund that arrives before its grant is taken back when the grant lands', async () => {
      const ivy = await account()
      await deliver(
        'charge.refunded',
        await stripe.charge({
          id: 'ch_ivy_1',
          payment_intent: 'pi_ivy_1',
          amount: 500,
          amount_refunded: 500,
        }),
      )
      await deliver('checkout.session.completed', await paidCheckout(ivy, 'pi_ivy_1'))
      const after = await billing(ivy)
      expect(after.balance).toBe(0)
      expect(after.entries).toMatchObject([
        { kind: 'clawback', amount: 500 },
        { kind: 'grant', amount: 500 },
      ])
    })
  })
})
