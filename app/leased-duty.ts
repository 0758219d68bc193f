// One owner per duty: a duty (writing the read models, housekeeping) runs in the one process that
// holds its lease, kept in the read store every process already shares (SQLite embedded, MongoDB
// scaled out). The holder renews every third of the lease's life; when it dies, the lease expires
// and the next claimant takes the duty over within one lease time and one claim interval.
//
// Every duty is idempotent (projections are position-guarded, housekeeping actions are commands
// decided against the event log), so a replay changes nothing twice. Two holders writing at once
// are another matter where the read store's guard is not atomic (FerretDB 1.x reads a filter and
// writes the match in two steps, so a racing writer's older copy can land over a newer one): a
// duty that writes asks the lease's fence before each write. The fence holds while our last claim
// has a third of its life left, so it fails before the next claimant may take the lease, and it
// fails at once when a renewal finds the lease taken, before the duty is stopped.
import type { ReadStore } from '../projections/read-store.ts'

export interface RunningDuty {
  stop(): Promise<void>
}

/** Asked by a running duty before each write that must not overlap another holder's. */
export interface LeaseFence {
  holds(): boolean
}

export interface LeasedDutyOptions {
  /** How long a claim lasts without renewal. */
  ttlMs: number
  now?: () => number
  onChange?(event: { duty: string; held: boolean; at: number }): void
}

export class LeasedDuty {
  readonly #reads: ReadStore
  readonly #name: string
  readonly #holder: string
  readonly #start: (fence: LeaseFence) => Promise<RunningDuty>
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #onChange: (event: { duty: string; held: boolean; at: number }) => void
  #running: RunningDuty | null = null
  /** Until when our last successful claim holds: past it we cannot know we still hold the lease. */
  #heldUntil = 0
  /** When the last claim was sent. */
  #claimedAt = 0
  #timer: NodeJS.Timeout | null = null
  #tick: Promise<void> = Promise.resolve()
  #stopped = false
  readonly #fence: LeaseFence = {
    holds: () => this.#now() < this.#heldUntil - this.#ttlMs / 3,
  }

  constructor(
    reads: ReadStore,
    name: string,
    holder: string,
    start: (fence: LeaseFence) => Promise<RunningDuty>,
    { ttlMs, now = Date.now, onChange = () => {} }: LeasedDutyOptions,
  ) {
    this.#reads = reads
    this.#name = name
    this.#holder = holder
    this.#start = start
    this.#ttlMs = ttlMs
    this.#now = now
    this.#onChange = onChange
  }

  get name(): string {
    return this.#name
  }

  /** Whether this process runs the duty now. */
  get held(): boolean {
    return this.#running !== null
  }

  /** Claims once (so a lone process starts its duty before it serves), then keeps claiming. */
  async start(): Promise<void> {
    await this.#claim()
    this.#schedule()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
    await this.#tick
    await this.#lose()
    await this.#reads.releaseLease(this.#name, this.#holder).catch(() => {})
  }

  /** Claims every third of the lease's life, counted from the last claim's start. */
  #schedule(): void {
    if (this.#stopped) return
    const due = this.#claimedAt + this.#ttlMs / 3 - this.#now()
    this.#timer = setTimeout(
      () => {
        this.#tick = this.#claim().finally(() => this.#schedule())
      },
      Math.max(10, Math.floor(due)),
    )
  }

  async #claim(): Promise<void> {
    const now = this.#now()
    this.#claimedAt = now
    try {
      const lease = await this.#reads.claimLease(this.#name, this.#holder, now, now + this.#ttlMs)
      if (lease.holder === this.#holder) {
        this.#heldUntil = lease.expiresAt
        if (!this.#running && !this.#stopped) {
          this.#running = await this.#start(this.#fence)
          this.#onChange({ duty: this.#name, held: true, at: this.#now() })
        }
      } else {
        // Another holds it: nothing more is written, not even what the duty flushes as it stops.
        this.#heldUntil = 0
        await this.#lose()
      }
    } catch {
      // The store did not answer: keep the duty only while our last claim still holds.
      if (this.#now() >= this.#heldUntil) await this.#lose()
    }
  }

  /** Stops the duty; it writes what it still holds only while the fence holds. */
  async #lose(): Promise<void> {
    const running = this.#running
    if (!running) return
    this.#running = null
    await running.stop()
    this.#onChange({ duty: this.#name, held: false, at: this.#now() })
  }
}
