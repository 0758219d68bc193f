// What can be bought: packs (paid once, credits last 12 months) and bundles (paid monthly, each
// month's credits roll over one extra month). Operators replace the defaults with BILLING_CATALOG.
import { z } from 'zod'
import type { CatalogItem } from '../../domain/ports/payment-processor.ts'

const catalogItem = z.strictObject({
  id: z.string().regex(/^[a-z0-9_]{1,40}$/),
  kind: z.enum(['pack', 'bundle']),
  name: z.string().min(1).max(80),
  priceUsd: z.number().positive(),
  credits: z.int().positive(),
  terms: z.string().max(500).nullable(),
})

export const defaultCatalog: CatalogItem[] = [
  { id: 'pack_500', kind: 'pack', name: '500 credits', priceUsd: 5, credits: 500, terms: null },
  { id: 'pack_2500', kind: 'pack', name: '2,500 credits', priceUsd: 20, credits: 2500, terms: null },
  {
    id: 'bundle_monthly_1500',
    kind: 'bundle',
    name: '1,500 credits every month',
    priceUsd: 12,
    credits: 1500,
    terms: 'Renews monthly until canceled; each month’s credits roll over for one extra month.',
  },
]

export function loadCatalog(json: string | null): CatalogItem[] {
  if (!json) return defaultCatalog
  return z.array(catalogItem).min(1).parse(JSON.parse(json))
}

/** A pack lasts 12 months; a bundle month's credits last until one month after its paid period. */
export function lotExpiry(item: CatalogItem, now: number, periodEnd: number | null): number {
  const from = new Date(item.kind === 'pack' ? now : (periodEnd ?? now))
  from.setUTCMonth(
    from.getUTCMonth() + (item.kind === 'pack' ? 12 : item.kind === 'bundle' && periodEnd === null ? 2 : 1),
  )
  return from.getTime()
}

/**
 * The credits a payment buys: the item's credits in the proportion the payment collected of the
 * item's price, rounded down, never more than the item. A discount buys proportionally fewer, a
 * payment that collected nothing buys nothing, and the parts of a split payment add up to no more
 * than the whole would have bought.
 */
export function creditsPaidFor(item: CatalogItem, amountCents: number): number {
  const priceCents = Math.round(item.priceUsd * 100)
  if (!(amountCents > 0) || priceCents <= 0) return 0
  return Math.min(item.credits, Math.floor((item.credits * amountCents) / priceCents))
}
