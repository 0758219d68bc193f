// Authentication without read-store round trips on every request: what a lookup found (a credential
// by its secret's hash, an account that may use the service) is remembered, and everything is
// forgotten the moment this process's projections apply an event that could change an answer (a
// key or console token revoked, an account disabled). Revocation therefore takes effect on the next
// request, as it did with a lookup per request. Only the process that writes the read models sees
// those events as they are applied, so the cache is on only while it holds the projector duty;
// elsewhere every request looks up the store.
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import { accountsModel } from '../../projections/accounts/account-docs.ts'
import { keysModel } from '../../projections/keys/projector.ts'

/** The events that withdraw a credential or an account, and the model whose documents they change. */
const withdrawing: Readonly<Record<string, string>> = {
  ApiKeyRevoked: keysModel,
  ConsoleTokenRevoked: keysModel,
  AccountDisabled: accountsModel,
}

const maxEntries = 50_000

export class CredentialCache {
  #on = false
  /** Batches with a withdrawal being written now: until they are, nothing is remembered. */
  #withdrawalsInFlight = 0
  /** Bumped by every forget: a lookup that started before it must not be remembered after it. */
  #epoch = 0
  readonly #entries = new Map<string, unknown>()

  /** Take this before a lookup and hand it to remember(). */
  get epoch(): number {
    return this.#epoch
  }

  get<T>(key: string): T | undefined {
    return this.#on && this.#withdrawalsInFlight === 0 ? (this.#entries.get(key) as T | undefined) : undefined
  }

  remember(key: string, value: unknown, epoch: number): void {
    if (!this.#on || this.#withdrawalsInFlight > 0 || epoch !== this.#epoch) return
    if (this.#entries.size >= maxEntries) this.#entries.clear()
    this.#entries.set(key, value)
  }

  /** The projector duty started here: from now on every withdrawal passes through observe(). */
  start(): void {
    this.#forget()
    this.#on = true
  }

  /** The projector duty stopped (or moved to another process): withdrawals are no longer seen here. */
  stop(): void {
    this.#on = false
    this.#forget()
  }

  /**
   * Called as a model starts writing a batch and when it is done. A withdrawal empties the cache at
   * both ends and keeps it empty in between: another process waiting on the stored checkpoint may
   * answer the revoking request before this one resumes, and the next request must already miss.
   */
  observe(phase: 'writing' | 'done', model: string, events: readonly RecordedEvent[]): void {
    if (!events.some((event) => withdrawing[event.type] === model)) return
    this.#withdrawalsInFlight += phase === 'writing' ? 1 : -1
    this.#forget()
  }

  #forget(): void {
    this.#epoch++
    this.#entries.clear()
  }
}
