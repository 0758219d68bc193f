// One subscription to the event log per process tells every waiter about its job (its events and its
// account's settlement of it, which is when a final state shows): `Prefer: wait`
// requests, the SSE status stream and the MCP tools' bounded wait all listen here. A waiter holds a
// callback in a map, nothing else: no timer of its own polling a store, no connection, no worker. A
// job's event is passed on only once the read models show it, so a waiter that reads the job when
// told sees at least that event's effect.
import { jobSettledBy } from '../../domain/account/settled-job.ts'
import type { EventStore, RecordedEvent, Subscription } from '../../domain/ports/event-store.ts'

export type JobEventListener = (event: RecordedEvent) => void

const jobStreamPrefix = 'job-'

export class JobEvents {
  readonly #store: EventStore
  readonly #visible: (position: number) => Promise<boolean>
  readonly #listeners = new Map<string, Set<JobEventListener>>()
  #subscription: Subscription | null = null

  /** `visible(position)` resolves once the read models have passed the position. */
  constructor(store: EventStore, visible: (position: number) => Promise<boolean>) {
    this.#store = store
    this.#visible = visible
  }

  /** Follows the log live from its head (waiters only care about what happens after they start). */
  async start(): Promise<void> {
    const head = await this.#store.headPosition()
    this.#subscription = this.#store.subscribeToAll({
      fromPosition: head,
      onEvent: (event) => this.#dispatch(event),
    })
  }

  async stop(): Promise<void> {
    await this.#subscription?.stop()
    this.#listeners.clear()
  }

  /** How many listeners are attached now (one per waiting request). */
  get listenerCount(): number {
    let count = 0
    for (const set of this.#listeners.values()) count += set.size
    return count
  }

  /** Calls `listener` with each later event of the job; the returned function detaches it. */
  listen(jobId: string, listener: JobEventListener): () => void {
    let set = this.#listeners.get(jobId)
    if (!set) {
      set = new Set()
      this.#listeners.set(jobId, set)
    }
    set.add(listener)
    return () => {
      const current = this.#listeners.get(jobId)
      current?.delete(listener)
      if (current?.size === 0) this.#listeners.delete(jobId)
    }
  }

  #dispatch(event: RecordedEvent): void {
    // A job's own events, and its account's settlement (the moment its final state shows).
    const jobId = event.streamId.startsWith(jobStreamPrefix)
      ? event.streamId.slice(jobStreamPrefix.length)
      : jobSettledBy(event)
    if (jobId === null || !this.#listeners.has(jobId)) return
    // Not awaited: the subscription goes on while the read models catch up. Read models apply
    // events in order, so one job's notifications keep their order.
    void this.#visible(event.position).then(() => {
      for (const listener of this.#listeners.get(jobId) ?? []) listener(event)
    })
  }
}

export interface HoldOptions<T> {
  /** Reads the job (from the read models). */
  read(): Promise<T>
  /** Whether the wait is over (the job is final). */
  done(value: T): boolean
  waitMs: number
  /** The client went away. */
  signal?: AbortSignal
  /** Told of each read, e.g. to report progress. */
  onRead?(value: T): Promise<void> | void
}

/**
 * Reads the job, then again at each of its events, until `done`, the time runs out or the client goes
 * away; answers the last read. Listens before the first read, so an event between a read and the wait
 * is not missed.
 */
export async function holdForJob<T>(events: JobEvents, jobId: string, options: HoldOptions<T>): Promise<T> {
  const deadline = Date.now() + options.waitMs
  let changed = false
  let wake = () => {}
  const detach = events.listen(jobId, () => {
    changed = true
    wake()
  })
  try {
    for (;;) {
      changed = false
      const value = await options.read()
      await options.onRead?.(value)
      if (options.done(value) || Date.now() >= deadline || options.signal?.aborted) return value
      if (!changed) await untilWoken(deadline - Date.now(), options.signal, (resolve) => (wake = resolve))
    }
  } finally {
    detach()
  }
}

function untilWoken(ms: number, signal: AbortSignal | undefined, onWake: (resolve: () => void) => void) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms))
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
    onWake(done)
  })
}
