// Sealing ledger events into the account's hash chain (ledger-hash.ts): deciders build ledger events
// `unsealed`, and `chain` fills in each one's previous hash and its own, in order.
import type { AccountEvent, LedgerEvent } from './events.ts'
import { ledgerHash } from './ledger-hash.ts'
import type { AccountState } from './state.ts'

/** Seals ledger events into the hash chain, in order, starting from the state's last hash. */
export function chain(state: AccountState, events: AccountEvent[]): AccountEvent[] {
  let prevHash = state.lastLedgerHash
  return events.map((event) => {
    if (!('prevHash' in event.data)) return event
    const data = { ...event.data, prevHash, hash: '' }
    data.hash = ledgerHash(event.type, { ...data, hash: undefined })
    prevHash = data.hash
    return { ...event, data } as LedgerEvent
  })
}

export const unsealed = { prevHash: '', hash: '' }
