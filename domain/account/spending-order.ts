// The order credits are spent in: the lot that expires first, then the one granted first, then by
// lot id, so the order is total. The decider, the read models and the auditor all use this one rule.

export interface OrderedLot {
  id: string
  expiresAt: number
  createdAt: number
}

export const bySpendingOrder = (a: OrderedLot, b: OrderedLot): number =>
  a.expiresAt - b.expiresAt || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
