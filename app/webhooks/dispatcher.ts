// Delivers webhooks from the event log, at least once. It runs in the one process holding the
// `webhooks` lease (app/leased-duty.ts). It follows the log from its checkpoint; for each event that
// makes a message it writes one pending delivery per endpoint that wants it (deliveries.ts), and only
// then moves the checkpoint past the event. A timer sends what is due: a 2xx delivers, anything else
// is tried again on an exponential schedule over about a day (domain/webhook/retry-schedule.ts), and
// an endpoint whose attempts keep failing is disabled (an event on the account stream, which the
// console shows). Kill the process anywhere and the next holder resends what was not confirmed.
import { Webhook } from 'standardwebhooks'
import type { RecordedEvent, Subscription } from '../../domain/ports/event-store.ts'
import { isWebhookEndpointEvent } from '../../domain/webhook/events.ts'
import { maxDeliveryAttempts, retryDelayMs } from '../../domain/webhook/retry-schedule.ts'
import { type WebhookEndpoint, wants } from '../../domain/webhook/state.ts'
import type { Doc, ReadStore } from '../../projections/read-store.ts'
import type { ServiceContext } from '../context.ts'
import { log } from '../log.ts'
import { postToUrl } from '../security/fetch-url.ts'
import { type DeliveryDoc, deliveryDocs } from './deliveries.ts'
import { disableWebhookEndpoint, webhookEndpoints, webhookUrlPolicy } from './endpoints.ts'
import { type CreditsOutlookSource, messageFor } from './messages.ts'

const checkpointKey = 'webhooks_position'
const healthCollection = 'webhook_endpoint_health'
/** Deliveries sent at once; the rest wait for the next tick. */
const concurrentDeliveries = 8
const checkpointEveryMs = 1000

interface EndpointHealth extends Doc {
  consecutiveFailures: number
}

export class WebhookDispatcher {
  readonly #ctx: ServiceContext
  readonly #reads: ReadStore
  /** Endpoints per account, read from the account stream, dropped when an endpoint event passes. */
  readonly #endpoints = new Map<string, Promise<WebhookEndpoint[]>>()
  readonly #inFlight = new Set<string>()
  #subscription: Subscription | null = null
  #timer: NodeJS.Timeout | null = null
  #position = 0
  #savedPosition = 0
  #savedAt = 0
  #ticking: Promise<void> | null = null
  #stopped = false

  readonly #outlook: CreditsOutlookSource

  /** `outlook` reads an account's balance and usual price once the read models pass a position. */
  constructor(ctx: ServiceContext, reads: ReadStore, outlook: CreditsOutlookSource) {
    this.#ctx = ctx
    this.#reads = reads
    this.#outlook = outlook
  }

  async start(): Promise<void> {
    // With no checkpoint it starts at the head: endpoints registered from now on get what happens next.
    this.#position = (await this.#reads.getCounter(checkpointKey)) ?? (await this.#ctx.store.headPosition())
    this.#savedPosition = this.#position
    await this.#reads.setCounter(checkpointKey, this.#position)
    this.#subscription = this.#ctx.store.subscribeToAll({
      fromPosition: this.#position,
      onEvent: (event) => this.#follow(event),
      onError: (error) => log.error({ err: error }, 'webhooks: subscription error'),
    })
    this.#timer = setInterval(() => {
      this.#ticking ??= this.tick().finally(() => {
        this.#ticking = null
      })
    }, this.#ctx.config.webhooks.tickMs)
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer) clearInterval(this.#timer)
    await this.#subscription?.stop()
    await this.#ticking
    await this.#saveCheckpoint(true).catch(() => {})
  }

  async #follow(event: RecordedEvent): Promise<void> {
    if (isWebhookEndpointEvent(event)) this.#endpoints.delete(event.data.accountId)
    const message = await messageFor(this.#ctx.store, this.#outlook, event)
    if (message) {
      const endpoints = (await this.#endpointsOf(message.accountId)).filter((endpoint) =>
        wants(endpoint, message.type),
      )
      if (endpoints.length > 0) {
        const docs = await deliveryDocs(this.#reads)
        const now = this.#ctx.now()
        // Version 1: a replay of the same event finds the delivery already there and leaves it alone.
        await docs.putGuarded(
          endpoints.map(
            (endpoint): DeliveryDoc => ({
              id: `wd_${message.messageId.slice('msg_'.length)}_${endpoint.id.slice('we_'.length)}`,
              position: 1,
              messageId: message.messageId,
              endpointId: endpoint.id,
              accountId: message.accountId,
              type: message.type,
              payload: message.payload,
              status: 'pending',
              attempts: 0,
              nextAttemptAt: now,
              lastStatusCode: null,
              lastError: null,
              lastAttemptAt: null,
              createdAt: now,
            }),
          ),
        )
      }
    }
    this.#position = event.position
    await this.#saveCheckpoint(message !== null)
  }

  async #saveCheckpoint(force: boolean): Promise<void> {
    const now = this.#ctx.now()
    if (this.#position === this.#savedPosition || (!force && now - this.#savedAt < checkpointEveryMs)) return
    const position = this.#position
    await this.#reads.setCounter(checkpointKey, position)
    this.#savedPosition = position
    this.#savedAt = now
  }

  #endpointsOf(accountId: string): Promise<WebhookEndpoint[]> {
    let endpoints = this.#endpoints.get(accountId)
    if (!endpoints) {
      endpoints = webhookEndpoints(this.#ctx, accountId)
      endpoints.catch(() => this.#endpoints.delete(accountId))
      this.#endpoints.set(accountId, endpoints)
    }
    return endpoints
  }

  /** Sends every delivery that is due (and not already on its way). */
  async tick(): Promise<void> {
    await this.#saveCheckpoint(false).catch(() => {})
    const docs = await deliveryDocs(this.#reads)
    const due = await docs.find({
      where: { status: 'pending' },
      below: { field: 'nextAttemptAt', value: this.#ctx.now() + 1 },
      orderBy: { field: 'nextAttemptAt', direction: 'asc' },
      limit: 100,
    })
    const queue = due.filter((doc) => !this.#inFlight.has(doc.id))
    const workers = Array.from({ length: concurrentDeliveries }, async () => {
      for (let doc = queue.shift(); doc && !this.#stopped; doc = queue.shift()) {
        this.#inFlight.add(doc.id)
        await this.#attempt(doc)
          .catch((error) => log.error({ deliveryId: doc?.id, err: error }, 'webhooks: attempt not recorded'))
          .finally(() => this.#inFlight.delete(doc!.id))
      }
    })
    await Promise.all(workers)
  }

  async #attempt(doc: DeliveryDoc): Promise<void> {
    const docs = await deliveryDocs(this.#reads)
    const endpoint = (await this.#endpointsOf(doc.accountId)).find((e) => e.id === doc.endpointId)
    if (!endpoint || endpoint.disabled) {
      await docs.putGuarded([{ ...doc, position: doc.position + 1, status: 'canceled' }])
      return
    }
    const { config } = this.#ctx
    const sentAt = new Date(this.#ctx.now())
    let statusCode: number | null = null
    let error: string | null = null
    try {
      const signature = new Webhook(endpoint.secret).sign(doc.messageId, sentAt, doc.payload)
      const answer = await postToUrl(
        endpoint.url,
        doc.payload,
        {
          'content-type': 'application/json',
          'user-agent': 'kiln-webhooks/1',
          'webhook-id': doc.messageId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        {
          ...webhookUrlPolicy(this.#ctx),
          ca: config.webhooks.loopbackCa ?? undefined,
          timeoutMs: config.webhooks.timeoutMs,
        },
      )
      statusCode = answer.status
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught)
    }
    const attempts = doc.attempts + 1
    const now = this.#ctx.now()
    const delay = error === null ? null : retryDelayMs(attempts, config.webhooks.retryScale)
    await docs.putGuarded([
      {
        ...doc,
        position: doc.position + 1,
        attempts,
        status:
          error === null
            ? 'delivered'
            : delay === null || attempts >= maxDeliveryAttempts
              ? 'failed'
              : 'pending',
        nextAttemptAt: delay === null ? doc.nextAttemptAt : now + delay,
        lastStatusCode: statusCode,
        lastError: error,
        lastAttemptAt: now,
      },
    ])
    await this.#recordHealth(endpoint, doc.accountId, error)
  }

  /** Counts consecutive failures per endpoint; past the limit the endpoint is disabled. */
  async #recordHealth(endpoint: WebhookEndpoint, accountId: string, error: string | null): Promise<void> {
    const health = this.#reads.collection<EndpointHealth>(healthCollection)
    const current = await health.get(endpoint.id)
    const consecutiveFailures = error === null ? 0 : (current?.consecutiveFailures ?? 0) + 1
    if (current && current.consecutiveFailures === consecutiveFailures) return
    await health.putGuarded([
      { id: endpoint.id, position: (current?.position ?? 0) + 1, consecutiveFailures },
    ])
    if (consecutiveFailures >= this.#ctx.config.webhooks.disableAfterFailures) {
      await disableWebhookEndpoint(
        this.#ctx,
        accountId,
        endpoint.id,
        `${consecutiveFailures} deliveries in a row failed; the last: ${error}`,
      )
      log.warn({ endpointId: endpoint.id, accountId }, 'webhooks: endpoint disabled after repeated failures')
    }
  }
}
