// Read-your-writes in a process that does not write the read models: it waits until every model's
// stored checkpoint has passed the position its write reached. One poller per process serves all
// waiters (a burst of requests costs one round of checkpoint reads per tick, not one per request),
// and it runs only while somebody waits.
import { activeGeneration, readCheckpoint } from './generations.ts'
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'

interface Waiter {
  position: number
  deadline: number
  resolve(passed: boolean): void
}

export class StoredPositionWatcher {
  readonly #reads: ReadStore
  readonly #projectors: readonly Projector[]
  readonly #intervalMs: number
  readonly #waiters = new Set<Waiter>()
  #polling = false
  /** The lowest checkpoint of all models at the last read: every position up to it is visible. */
  #reached = 0

  constructor(reads: ReadStore, projectors: readonly Projector[], intervalMs = 15) {
    this.#reads = reads
    this.#projectors = projectors
    this.#intervalMs = intervalMs
  }

  wait(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.#reached) return Promise.resolve(true)
    return new Promise((resolve) => {
      this.#waiters.add({ position, deadline: Date.now() + timeoutMs, resolve })
      if (!this.#polling) void this.#poll()
    })
  }

  async #lowestCheckpoint(): Promise<number> {
    let lowest = Number.POSITIVE_INFINITY
    for (const projector of this.#projectors) {
      const generation = await activeGeneration(this.#reads, projector.model)
      lowest = Math.min(lowest, await readCheckpoint(this.#reads, projector.model, generation))
    }
    return lowest
  }

  async #poll(): Promise<void> {
    this.#polling = true
    try {
      while (this.#waiters.size > 0) {
        try {
          this.#reached = Math.max(this.#reached, await this.#lowestCheckpoint())
        } catch {
          // The store did not answer this time; the waiters' deadlines still hold.
        }
        const now = Date.now()
        for (const waiter of this.#waiters) {
          if (waiter.position <= this.#reached) waiter.resolve(true)
          else if (now >= waiter.deadline) waiter.resolve(false)
          else continue
          this.#waiters.delete(waiter)
        }
        if (this.#waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, this.#intervalMs))
      }
    } finally {
      this.#polling = false
    }
  }
}
