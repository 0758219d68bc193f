// The account's ledger hash chain: each ledger event's hash covers its type, its data (without
// `hash`) and the previous ledger event's hash. Keys are sorted so the hash is independent of
// property order.
import { hash } from 'node:crypto'

export const genesisHash = '0'.repeat(64)

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export function ledgerHash(type: string, data: Record<string, unknown>): string {
  const { hash: _ignored, ...rest } = data
  return hash('sha256', `${type}\n${canonical(rest)}`, 'hex')
}
