// The embedded dispatcher: an in-memory FIFO shared by the consumers of one process. Nothing here is
// durable on purpose — the event store feeds queued jobs back in after a restart.
import type { ConsumeOptions, Consumer, Dispatcher, JobMessage } from '../../domain/ports/dispatcher.ts'
import { defaultRetryPolicy, type RetryPolicy, redeliveryDelayMs } from './retry-policy.ts'
import { runDelivery } from './run-delivery.ts'

export interface InProcessDispatcherOptions {
  /** Deliveries that run the handler before the job is dead-lettered (default 3). */
  maxDeliver?: number
  /** Delay before the first redelivery of a rejected job (default 1 s). */
  retryDelayMs?: number
}

interface Queued {
  job: JobMessage
  deliveries: number
}

interface LocalConsumer {
  options: ConsumeOptions
  running: Set<Promise<void>>
  stopped: boolean
}

export class InProcessDispatcher implements Dispatcher {
  readonly #policy: RetryPolicy
  readonly #queue: Queued[] = []
  /** Job ids queued, running or waiting to be retried: a publish of any of them is a duplicate. */
  readonly #known = new Set<string>()
  readonly #consumers: LocalConsumer[] = []
  readonly #retryTimers = new Set<NodeJS.Timeout>()
  /** Round-robin start, so consumers with free slots share the work. */
  #nextConsumer = 0
  #closed = false

  constructor(options: InProcessDispatcherOptions = {}) {
    this.#policy = {
      maxDeliver: options.maxDeliver ?? defaultRetryPolicy.maxDeliver,
      retryDelayMs: options.retryDelayMs ?? defaultRetryPolicy.retryDelayMs,
    }
  }

  async publish(job: JobMessage): Promise<void> {
    if (this.#closed) throw new Error('dispatcher is closed')
    if (this.#known.has(job.jobId)) return
    this.#known.add(job.jobId)
    this.#queue.push({ job: { jobId: job.jobId, tool: job.tool }, deliveries: 0 })
    this.#pump()
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    if (this.#closed) throw new Error('dispatcher is closed')
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`)
    }
    const consumer: LocalConsumer = { options, running: new Set(), stopped: false }
    this.#consumers.push(consumer)
    this.#pump()
    return { stop: () => this.#stop(consumer) }
  }

  async pending(): Promise<number> {
    return this.#known.size
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const timer of this.#retryTimers) clearTimeout(timer)
    this.#retryTimers.clear()
    this.#queue.length = 0
    await Promise.all(this.#consumers.map((consumer) => this.#stop(consumer)))
    this.#known.clear()
  }

  async #stop(consumer: LocalConsumer): Promise<void> {
    consumer.stopped = true
    const index = this.#consumers.indexOf(consumer)
    if (index >= 0) this.#consumers.splice(index, 1)
    // Jobs already running finish and settle normally; only new work stops.
    await Promise.all(consumer.running)
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const consumer = this.#freeConsumer()
      if (!consumer) return
      const queued = this.#queue.shift()!
      const run = this.#deliver(consumer, queued).finally(() => {
        consumer.running.delete(run)
        this.#pump()
      })
      consumer.running.add(run)
    }
  }

  #freeConsumer(): LocalConsumer | undefined {
    const count = this.#consumers.length
    for (let i = 0; i < count; i++) {
      const consumer = this.#consumers[(this.#nextConsumer + i) % count]!
      if (consumer.running.size < consumer.options.concurrency) {
        this.#nextConsumer = (this.#nextConsumer + i + 1) % count
        return consumer
      }
    }
    return undefined
  }

  async #deliver(consumer: LocalConsumer, queued: Queued): Promise<void> {
    queued.deliveries += 1
    const outcome = await runDelivery({
      policy: this.#policy,
      options: consumer.options,
      job: queued.job,
      deliveryCount: queued.deliveries,
      // The handler shares this process: while it runs, the job cannot be lost, so there is no deadline
      // to extend.
      working: () => {},
    })
    if (outcome === 'retry' && !this.#closed) this.#retryLater(queued)
    else this.#known.delete(queued.job.jobId)
  }

  #retryLater(queued: Queued): void {
    const timer = setTimeout(
      () => {
        this.#retryTimers.delete(timer)
        this.#queue.push(queued)
        this.#pump()
      },
      redeliveryDelayMs(this.#policy, queued.deliveries),
    )
    this.#retryTimers.add(timer)
  }
}
