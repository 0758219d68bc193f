// Read-your-writes once job creation answers before the read models have its events: this process
// remembers, per account, the position of the last job it created, and a read by that account waits
// until the read models have passed it (they usually have: projection takes about a commit). An
// account with nothing pending costs one map lookup. A read on another process cannot see this map;
// there a job that is not found yet is looked up again once the models reach the store's head
// (the jobs route).
import type { Services } from '../app/services.ts'

/** More accounts than this with a pending write: the oldest are dropped (their reads just wait less). */
const maxAccounts = 10_000

export class OwnWrites {
  readonly #pending = new Map<string, number>()

  noteWrite(accountId: string, position: number): void {
    this.#pending.delete(accountId)
    this.#pending.set(accountId, position)
    if (this.#pending.size > maxAccounts) this.#pending.delete(this.#pending.keys().next().value!)
  }

  /**
   * Waits (up to the usual read-your-writes timeout) for the account's pending write to be projected;
   * undefined, with nothing to wait for, when it has none.
   */
  settle(services: Services, accountId: string): Promise<void> | undefined {
    const position = this.#pending.get(accountId)
    if (position === undefined) return undefined
    return services.waitForPosition(position).then(() => {
      if (this.#pending.get(accountId) === position) this.#pending.delete(accountId)
    })
  }
}
