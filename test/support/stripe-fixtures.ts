// Stripe objects and webhook events for billing tests, built from stripe-mock's own fixtures (the
// objects of the API spec stripe-mock embeds) with only the fields a scenario needs replaced, and
// signed the way Stripe signs webhooks. stripe-mock is stateless: it cannot remember which payments
// paid an invoice, so `startStripeApi` puts a small server in front of it that answers those two
// lookups (`GET /v1/invoices/{id}`, `GET /v1/invoice_payments?invoice=`) from the scenario, in
// Stripe's wire format, and passes every other request through to stripe-mock.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

export type StripeObject = Record<string, unknown>

/** The API version the SDK pins: what the service's client sends, and what its events carry. */
export const pinnedApiVersion = Stripe.API_VERSION

const signer = new Stripe('sk_test_123')

export class StripeFixtures {
  readonly #mockUrl: string
  readonly #webhookSecret: string
  #events = 0

  constructor(mockUrl: string, webhookSecret: string) {
    this.#mockUrl = mockUrl
    this.#webhookSecret = webhookSecret
  }

  /** The object stripe-mock serves at `/v1/{path}`, with `fields` replaced. */
  async object(path: string, fields: StripeObject): Promise<StripeObject> {
    const response = await fetch(`${this.#mockUrl}/v1/${path}`, {
      headers: { authorization: 'Bearer sk_test_123', 'stripe-version': pinnedApiVersion },
    })
    if (!response.ok) throw new Error(`stripe-mock answered ${response.status} for ${path}`)
    return { ...((await response.json()) as StripeObject), ...fields }
  }

  checkoutSession = (fields: StripeObject) => this.object(`checkout/sessions/${fields.id}`, fields)
  invoice = (fields: StripeObject) => this.object(`invoices/${fields.id}`, fields)
  invoicePayment = (fields: StripeObject) =>
    this.object(`invoice_payments/${fields.id}`, { object: 'invoice_payment', ...fields })
  dispute = (fields: StripeObject) => this.object(`disputes/${fields.id}`, fields)
  charge = (fields: StripeObject) => this.object(`charges/${fields.id}`, fields)
  refund = (fields: StripeObject) => this.object(`refunds/${fields.id}`, fields)
  subscription = (fields: StripeObject) => this.object(`subscriptions/${fields.id}`, fields)

  /** An event of the pinned API version around `object`, as stripe-mock shapes events. */
  async event(type: string, object: StripeObject, id = `evt_kiln_${Date.now()}_${++this.#events}`) {
    return this.object(`events/${id}`, {
      id,
      type,
      api_version: pinnedApiVersion,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    })
  }

  /** The body and the Stripe-Signature header of a webhook delivery of `event`. */
  signed(event: StripeObject, secret = this.#webhookSecret): { payload: string; signature: string } {
    const payload = JSON.stringify(event)
    return { payload, signature: signer.webhooks.generateTestHeaderString({ payload, secret }) }
  }
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export interface StripeApi {
  url: string
  /** Invoices by id, as `GET /v1/invoices/{id}` returns them. */
  invoices: Map<string, StripeObject>
  /** InvoicePayment objects by invoice id, as `GET /v1/invoice_payments?invoice=` lists them. */
  invoicePayments: Map<string, StripeObject[]>
  /** While set, those two lookups answer 500 with Stripe's error body (the processor is down). */
  failing: boolean
  stop(): Promise<void>
}

export async function startStripeApi(mockUrl: string): Promise<StripeApi> {
  const invoices = new Map<string, StripeObject>()
  const invoicePayments = new Map<string, StripeObject[]>()
  const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) })
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stripe.local')
    const invoiceId = /^\/v1\/invoices\/([^/]+)$/.exec(url.pathname)?.[1]
    let answer: { status: number; body: string } | null = null
    if (api.failing && (invoiceId || url.pathname === '/v1/invoice_payments'))
      answer = json(500, { error: { type: 'api_error', message: 'An unknown error occurred.' } })
    else if (request.method === 'GET' && invoiceId && invoices.has(invoiceId))
      answer = json(200, invoices.get(invoiceId))
    else if (request.method === 'GET' && url.pathname === '/v1/invoice_payments') {
      const status = url.searchParams.get('status')
      const data = (invoicePayments.get(url.searchParams.get('invoice') ?? '') ?? []).filter(
        (payment) => !status || payment.status === status,
      )
      answer = json(200, { object: 'list', data, has_more: false, url: '/v1/invoice_payments' })
    }
    if (!answer) {
      // Everything else is stripe-mock's.
      const body = await readBody(request)
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length')
          headers.set(name, value)
      const passed = await fetch(`${mockUrl}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: body.length > 0 ? body : undefined,
      })
      answer = { status: passed.status, body: await passed.text() }
    }
    response.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_kiln_test' })
    response.end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const api: StripeApi = {
    url: `http://127.0.0.1:${port}`,
    invoices,
    invoicePayments,
    failing: false,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  }
  return api
}
