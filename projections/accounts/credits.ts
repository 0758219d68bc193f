// Balances at read time: a lot counts while its expiry is not recorded and not yet due.
import { bySpendingOrder } from '../../domain/account/spending-order.ts'
import type { LotView } from './account-docs.ts'

/** Live lots in spending order: expires first, then granted first, then lot id. */
export function liveLots(lots: readonly LotView[], now: number): LotView[] {
  return lots.filter((lot) => !lot.expired && lot.expiresAt > now).sort(bySpendingOrder)
}

export const balanceOf = (live: readonly LotView[]): number =>
  live.reduce((sum, lot) => sum + lot.remaining, 0)

/** The credits that expire first: every live credit sharing the earliest expiry. */
export function nextExpiry(live: readonly LotView[]): { credits: number; at: string } | null {
  const first = live.find((lot) => lot.remaining > 0)
  if (!first) return null
  const credits = live
    .filter((lot) => lot.expiresAt === first.expiresAt)
    .reduce((sum, lot) => sum + lot.remaining, 0)
  return { credits, at: new Date(first.expiresAt).toISOString() }
}
