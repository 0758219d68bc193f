// Keeps one read model up to date: a catch-up subscription from the model's stored checkpoint,
// then live. Events are projected in batches (a full batch, or whatever arrived before the event
// loop turns). When the model's active generation changes under it (a rebuild switched over), or
// a write fails, it resubscribes from the checkpoint of the generation it should write to.
import type { EventStore, RecordedEvent, Subscription } from '../domain/ports/event-store.ts'
import { activeGeneration, prepareGeneration, readCheckpoint } from './generations.ts'
import { BatchFenced, projectBatch } from './project-batch.ts'
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'

export interface RunnerOptions {
  batchSize?: number
  /** Wait before resubscribing after a failed batch. */
  retryDelayMs?: number
  onError?(error: unknown): void
  /**
   * Called with each batch just before the model writes it, and again once the write is over
   * (written or failed), before waiters for its positions wake: between the two, readers of the model
   * may see the batch or not.
   */
  onBatch?(phase: 'writing' | 'done', events: readonly RecordedEvent[]): void
  /**
   * The runner of the model this one follows (Projector.follows): each batch waits for it to apply
   * the batch's last position, up to `followTimeoutMs`, then is written regardless, so a stalled
   * model slows this one but never stops it.
   */
  follows?: ProjectionRunner
  followTimeoutMs?: number
  /**
   * How long the model's active generation, once read, is trusted before a batch reads it again
   * (one read-store lookup; per batch it was a fifth of the read store's time on the creation path).
   * A rebuild's switch is noticed within this, as readers notice it within ReadModels' own TTL;
   * batches written meanwhile go to the old generation and are projected again into the new one
   * from its checkpoint.
   */
  generationCheckMs?: number
  /**
   * Asked before each write (the lease's fence, LeasedDuty). Before a batch, a no holds the batch
   * (events go on arriving behind it) until the answer is yes, as when a late renewal of the lease
   * comes through, or until the runner is stopped, as when the lease was taken: then the batch is
   * dropped, left to the next holder. A no between the writes of one batch stops it there, and the
   * runner resubscribes from the stored checkpoint after `retryDelayMs`.
   */
  mayWrite?: () => boolean
}

/** How often a batch held by the lease's fence asks again. */
const fenceRetryMs = 25

interface Waiter {
  position: number
  resolve(passed: boolean): void
}

export class ProjectionRunner {
  readonly #store: EventStore
  readonly #reads: ReadStore
  readonly #projector: Projector
  readonly #batchSize: number
  readonly #retryDelayMs: number
  readonly #onError: (error: unknown) => void
  readonly #onBatch: (phase: 'writing' | 'done', events: readonly RecordedEvent[]) => void
  readonly #follows: ProjectionRunner | null
  readonly #followTimeoutMs: number
  readonly #generationCheckMs: number
  readonly #mayWrite: () => boolean
  #generation = 0
  /** When the active generation was last read (performance.now()). */
  #generationCheckedAt = Number.NEGATIVE_INFINITY
  #position = 0
  #subscription: Subscription | null = null
  #buffer: RecordedEvent[] = []
  #flushing: Promise<void> = Promise.resolve()
  #flushScheduled = false
  /** Set while the subscription is being replaced: events still arriving from the old one are dropped. */
  #restarting = false
  #stopped = false
  readonly #waiters = new Set<Waiter>()

  constructor(store: EventStore, reads: ReadStore, projector: Projector, options: RunnerOptions = {}) {
    this.#store = store
    this.#reads = reads
    this.#projector = projector
    this.#batchSize = options.batchSize ?? 500
    this.#retryDelayMs = options.retryDelayMs ?? 1000
    this.#onError = options.onError ?? ((error) => console.error(`projection ${projector.model}:`, error))
    this.#onBatch = options.onBatch ?? (() => {})
    this.#follows = options.follows ?? null
    this.#followTimeoutMs = options.followTimeoutMs ?? 10_000
    this.#generationCheckMs = options.generationCheckMs ?? 1000
    this.#mayWrite = options.mayWrite ?? (() => true)
  }

  get model(): string {
    return this.#projector.model
  }

  /** The position up to which the model is written and checkpointed. */
  get position(): number {
    return this.#position
  }

  async start(): Promise<void> {
    await this.#attach()
    this.#subscribe()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#subscription?.stop()
    await this.#flush()
    for (const waiter of this.#waiters) waiter.resolve(this.#position >= waiter.position)
    this.#waiters.clear()
  }

  /** How many positions the model is behind the event store's head. */
  async lag(): Promise<number> {
    return Math.max(0, (await this.#store.headPosition()) - this.#position)
  }

  /** Resolves true once the model has applied everything up to `position`, false after `timeoutMs`. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    if (this.#position >= position || this.#stopped) return Promise.resolve(this.#position >= position)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter)
        resolve(false)
      }, timeoutMs)
      const waiter: Waiter = {
        position,
        resolve: (passed) => {
          clearTimeout(timer)
          resolve(passed)
        },
      }
      this.#waiters.add(waiter)
    })
  }

  async #attach(): Promise<void> {
    this.#generation = await activeGeneration(this.#reads, this.#projector.model)
    this.#generationCheckedAt = performance.now()
    await prepareGeneration(this.#reads, this.#projector, this.#generation)
    this.#position = await readCheckpoint(this.#reads, this.#projector.model, this.#generation)
    this.#buffer = []
    this.#notify()
  }

  #subscribe(): void {
    this.#restarting = false
    this.#subscription = this.#store.subscribeToAll({
      fromPosition: this.#position,
      onEvent: (event) => this.#onEvent(event),
      onError: this.#onError,
    })
  }

  async #onEvent(event: RecordedEvent): Promise<void> {
    if (this.#restarting || event.position <= this.#position) return
    this.#buffer.push(event)
    if (this.#buffer.length >= this.#batchSize) {
      await this.#flush()
    } else if (!this.#flushScheduled) {
      this.#flushScheduled = true
      setImmediate(() => {
        this.#flushScheduled = false
        void this.#flush()
      })
    }
  }

  #flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushBuffer())
    return this.#flushing
  }

  async #flushBuffer(): Promise<void> {
    const events = this.#buffer
    this.#buffer = []
    if (events.length === 0 || this.#restarting) return
    try {
      if (performance.now() - this.#generationCheckedAt >= this.#generationCheckMs) {
        const active = await activeGeneration(this.#reads, this.#projector.model)
        this.#generationCheckedAt = performance.now()
        if (active !== this.#generation) {
          this.#restart(0)
          return
        }
      }
      if (this.#follows) await this.#follows.waitForPosition(events.at(-1)!.position, this.#followTimeoutMs)
      while (!this.#mayWrite()) {
        if (this.#stopped) return
        await new Promise((resolve) => setTimeout(resolve, fenceRetryMs))
      }
      this.#onBatch('writing', events)
      try {
        await projectBatch(this.#reads, this.#projector, this.#generation, events, this.#mayWrite)
      } finally {
        this.#onBatch('done', events)
      }
      this.#position = events.at(-1)!.position
      this.#notify()
    } catch (error) {
      // A fenced batch is no failure: the lease's next renewal (or its next holder) decides.
      if (!(error instanceof BatchFenced)) this.#onError(error)
      this.#restart(this.#retryDelayMs)
    }
  }

  /** Replaces the subscription from outside its delivery chain (stopping it waits for that chain). */
  #restart(delayMs: number): void {
    if (this.#stopped) return
    this.#restarting = true
    setTimeout(async () => {
      try {
        await this.#subscription?.stop()
        if (this.#stopped) return
        await this.#attach()
        this.#subscribe()
      } catch (error) {
        this.#onError(error)
        this.#restart(this.#retryDelayMs)
      }
    }, delayMs)
  }

  #notify(): void {
    for (const waiter of this.#waiters) {
      if (this.#position >= waiter.position) {
        this.#waiters.delete(waiter)
        waiter.resolve(true)
      }
    }
  }
}
