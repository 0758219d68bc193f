// The composition root: builds the event store, read models, blob store, dispatcher, projection
// runners, housekeeper and job consumer from the configuration. The embedded default needs nothing
// but a data folder; KURRENTDB_URL, MONGODB_URL and NATS_URL switch each part to its server.
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { StripePaymentProcessor } from '../adapters/payments/stripe.ts'
import type { Consumer } from '../domain/ports/dispatcher.ts'
import type { CatalogItem } from '../domain/ports/payment-processor.ts'
import { toolCatalog } from '../domain/tools/catalog.ts'
import { creditsOutlook } from '../projections/accounts/credits-outlook.ts'
import { activeGeneration, readCheckpoint } from '../projections/generations.ts'
import { projectors } from '../projections/models.ts'
import { type RunningProjections, startProjections } from '../projections/projections.ts'
import { ReadModels } from '../projections/read-models.ts'
import { StoredPositionWatcher } from '../projections/stored-position.ts'
import { readStoreSnapshots } from '../projections/stream-snapshot-store.ts'
import { Housekeeper } from '../workers/housekeeper.ts'
import { housekeepingCheckpoints } from '../workers/housekeeping-checkpoints.ts'
import { executeJob } from '../workers/job-executor.ts'
import { measureInput } from '../workers/measure-input.ts'
import { WarmChildPool } from '../workers/runtime/warm-pool.ts'
import { atRestKey } from '../workers/secrets/at-rest.ts'
import { SecretBlobStore } from '../workers/secrets/secret-blob-store.ts'
import { loadCatalog } from './billing/catalog.ts'
import type { Config } from './config.ts'
import type { ServiceContext } from './context.ts'
import { CredentialCache } from './identity/credential-cache.ts'
import { JobEvents } from './jobs/job-events.ts'
import type { MeasureInput } from './jobs/quote-job.ts'
import { failJob } from './jobs/settle-job.ts'
import { LeasedDuty } from './leased-duty.ts'
import { log } from './log.ts'
import { createMetrics, measuredEventStore } from './metrics.ts'
import { pooledRandom } from './security/pooled-random.ts'
import { secretFile } from './security/secret-file.ts'
import { openBlobStore, openDispatcher, openEventStore, openReadStore } from './stores.ts'
import { keepSnapshots, StreamSnapshots } from './stream-snapshots.ts'
import { WebhookDispatcher } from './webhooks/dispatcher.ts'

export interface Services {
  ctx: ServiceContext
  models: ReadModels
  /** Credentials and accounts authentication found, kept until a withdrawal is projected here. */
  credentials: CredentialCache
  /** The duties held under a lease (projector, housekeeper): whether this process holds each now. */
  duties: LeasedDuty[]
  /** Tells waiting requests (Prefer: wait, SSE, MCP) about their job's events, once the read models show them. */
  jobEvents: JobEvents
  /** Measures a job's input without running the tool (price quotes). */
  measureInput: MeasureInput
  /** What the billing catalog sells (available only with a payment processor). */
  catalog: CatalogItem[]
  /** Resolves once every read model has passed the position (read-your-writes), or after the timeout. */
  waitForPosition(position: number, timeoutMs?: number): Promise<boolean>
  /** Whether this instance can serve: stores answer and every read model is close to the head. */
  readiness(): Promise<Readiness>
  /** Brings the scrape-time gauges (queue depth, projection lag, leases) up to date. */
  refreshGauges(): Promise<void>
  close(): Promise<void>
}

export interface Readiness {
  ready: boolean
  eventStore: boolean
  readStore: boolean
  /** Positions each read model is behind the event store head; null when it could not be read. */
  lag: Record<string, number> | null
  maxLag: number
}

export interface StartOptions {
  /** Run jobs in this process (the embedded default, and `npm run worker`). */
  consumeJobs?: boolean
  /** Run projections and the housekeeper (the API process). */
  project?: boolean
  now?: () => number
}

/**
 * The signing secret: from the environment, or generated once and kept in the data folder. The file
 * is created exclusively, so processes starting together on one folder all end up with the first
 * one's secret rather than each writing its own.
 */
export function signingSecret(config: Config): string {
  if (config.signingSecret) return config.signingSecret
  const path = join(config.dataDir, 'signing.secret')
  const secret = secretFile(path, () => randomBytes(32).toString('base64url'))
  if (Buffer.byteLength(secret) < 32)
    throw new Error(`${path} holds a secret under 32 bytes; remove it to make a new one`)
  return secret
}

export async function startServices(config: Config, options: StartOptions = {}): Promise<Services> {
  const { consumeJobs = config.roles.includes('worker'), project = true, now = Date.now } = options
  mkdirSync(config.dataDir, { recursive: true })
  const resolvedConfig = { ...config, signingSecret: signingSecret(config) }
  const metrics = createMetrics()
  const store = measuredEventStore(await openEventStore(resolvedConfig), metrics)
  const readStore = await openReadStore(resolvedConfig)
  // Account decisions start from a snapshot (in memory, and persisted beside the read models).
  keepSnapshots(store, new StreamSnapshots(readStoreSnapshots(readStore)))
  const dispatcher = openDispatcher(resolvedConfig)
  const ctx: ServiceContext = {
    config: resolvedConfig,
    store,
    // Secret outputs (random bytes) are encrypted at rest under a key kept beside the signing secret.
    blobs: new SecretBlobStore(openBlobStore(config), atRestKey(config.dataDir, config.atRestKey)),
    dispatcher,
    now,
    random: pooledRandom(),
    metrics,
    payments: resolvedConfig.stripe
      ? new StripePaymentProcessor({
          ...resolvedConfig.stripe,
          apiBase: resolvedConfig.stripe.apiBase ?? undefined,
        })
      : null,
  }
  const models = new ReadModels(readStore)
  // Each duty runs in one process at a time, under a lease in the shared read store.
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  let projections: RunningProjections | null = null
  const credentials = new CredentialCache()
  const duties: LeasedDuty[] = []
  if (project && config.roles.includes('projector'))
    duties.push(
      new LeasedDuty(
        readStore,
        'projector',
        holder,
        async (fence) => {
          credentials.start()
          const started = await startProjections(store, readStore, {
            mayWrite: fence.holds,
            onError: (error, model) =>
              log.error({ model, err: error }, 'projection: batch failed; resubscribing'),
            onBatch: (phase, model, events) => credentials.observe(phase, model, events),
          })
          projections = started
          return {
            async stop() {
              credentials.stop()
              await started.stop()
            },
          }
        },
        { ttlMs: config.leaseTtlMs },
      ),
    )
  if (project && config.roles.includes('housekeeper'))
    duties.push(
      new LeasedDuty(
        readStore,
        'housekeeper',
        holder,
        async () => {
          const housekeeper = new Housekeeper(ctx, {
            runningJobsAreOrphansAtStart: !config.natsUrl,
            checkpoints: housekeepingCheckpoints(readStore),
          })
          await housekeeper.start()
          return housekeeper
        },
        { ttlMs: config.leaseTtlMs },
      ),
    )
  // Webhook deliveries follow the log like the housekeeper, under their own lease.
  if (project && config.roles.includes('housekeeper'))
    duties.push(
      new LeasedDuty(
        readStore,
        'webhooks',
        holder,
        async () => {
          const dispatcher = new WebhookDispatcher(ctx, readStore, async (accountId, position) => {
            await waitForPosition(position)
            return creditsOutlook(models, accountId, now())
          })
          await dispatcher.start()
          return dispatcher
        },
        { ttlMs: config.leaseTtlMs },
      ),
    )
  const projectorDuty = duties.find((duty) => duty.name === 'projector')
  /** Read-your-writes where another process projects: wait for the stored checkpoints to pass. */
  const storedPositions = new StoredPositionWatcher(readStore, projectors)
  for (const duty of duties) await duty.start()

  /** Positions each read model's stored checkpoint is behind `head`. */
  async function projectionLag(head: number): Promise<Record<string, number>> {
    const lag: Record<string, number> = {}
    for (const projector of projectors) {
      const generation = await activeGeneration(readStore, projector.model)
      lag[projector.model] = Math.max(
        0,
        head - (await readCheckpoint(readStore, projector.model, generation)),
      )
    }
    return lag
  }

  let consumer: Consumer | null = null
  let warmChildren: WarmChildPool | null = null
  if (consumeJobs) {
    const workerName = `${hostname()}:${process.pid}`
    // Warm children start with the smallest memory limit: the quick tools', where a child's start-up
    // would dominate the job. The pool then follows the tools actually asked for.
    const quickToolsMemoryMb = Math.min(...[...toolCatalog.values()].map((tool) => tool.limits.memoryMb))
    const children = new WarmChildPool(config.warmChildren, quickToolsMemoryMb)
    warmChildren = children
    consumer = await dispatcher
      .consume({
        concurrency: config.workerConcurrency,
        handle: (job, delivery) => executeJob(ctx, job, delivery, workerName, children),
        deadLetter: (job, attempts) =>
          failJob(
            ctx,
            job.jobId,
            {
              code: 'internal',
              message: `The job could not be run after ${attempts} attempts.`,
              hint: 'Retry later; failed jobs cost nothing.',
            },
            null,
          ),
      })
      .catch(async (error: unknown) => {
        await children.close()
        throw error
      })
  }

  async function waitForPosition(position: number, timeoutMs = 5000): Promise<boolean> {
    if (!projectorDuty?.held || projections === null) return storedPositions.wait(position, timeoutMs)
    return projections.waitForPosition(position, timeoutMs)
  }
  const jobEvents = new JobEvents(store, (position) => waitForPosition(position))
  await jobEvents.start()

  return {
    ctx,
    models,
    credentials,
    duties,
    jobEvents,
    measureInput: (tool, input, options) => measureInput(ctx, tool, input, options),
    catalog: loadCatalog(config.billingCatalog),
    waitForPosition,
    async readiness() {
      const eventStore = await store.headPosition().then(
        (head) => head,
        () => null,
      )
      const lag = eventStore === null ? null : await projectionLag(eventStore).catch(() => null)
      const readStoreOk = lag !== null
      const maxLag = config.readyMaxLag
      const ready = eventStore !== null && readStoreOk && Object.values(lag).every((value) => value <= maxLag)
      return { ready, eventStore: eventStore !== null, readStore: readStoreOk, lag, maxLag }
    },
    async refreshGauges() {
      metrics.queueDepth.set(await dispatcher.pending().catch(() => 0))
      for (const [model, value] of Object.entries(await projectionLag(await store.headPosition())))
        metrics.projectionLag.set({ model }, value)
      for (const duty of duties) metrics.leaseHeld.set({ duty: duty.name }, duty.held ? 1 : 0)
    },
    async close() {
      await jobEvents.stop()
      await consumer?.stop()
      await warmChildren?.close()
      for (const duty of duties) await duty.stop()
      await dispatcher.close()
      await readStore.close()
      await store.close()
    },
  }
}
