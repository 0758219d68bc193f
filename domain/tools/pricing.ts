// Prices in credits (100 credits = US$1) by the measured size of the input.

export type PricingUnit = 'faces' | 'pages'

/** A second unit priced on top of the first, e.g. the pages of a PDF job that needed OCR. */
export interface ExtraPricing {
  unit: 'ocr_pages'
  per: number
  credits: number
}

export type Pricing =
  | { kind: 'tiers'; unit: PricingUnit; tiers: { upTo: number; credits: number }[]; description: string }
  | {
      kind: 'per'
      unit?: PricingUnit
      per: number
      credits: number
      description: string
      /** Charged in addition, for every started `per` extra units (none when there are none). */
      extra?: ExtraPricing
    }
  | { kind: 'free'; description: string }

/**
 * tiers: the first tier the input fits in; beyond the last tier, the last tier's price again
 * for each further `upTo` units (started). per: `credits` for every started `per` units.
 */
export function priceFor(pricing: Pricing, units: number, extraUnits = 0): number {
  switch (pricing.kind) {
    case 'free':
      return 0
    case 'per': {
      const extra =
        pricing.extra && extraUnits > 0
          ? Math.ceil(extraUnits / pricing.extra.per) * pricing.extra.credits
          : 0
      return Math.max(1, Math.ceil(units / pricing.per)) * pricing.credits + extra
    }
    case 'tiers': {
      const fitting = pricing.tiers.find((tier) => units <= tier.upTo)
      if (fitting) return fitting.credits
      const last = pricing.tiers.at(-1)!
      const beyond = units - last.upTo
      return last.credits + Math.ceil(beyond / last.upTo) * last.credits
    }
  }
}

/** The least any job of the tool can cost: admission needs at least this much. */
export function smallestPrice(pricing: Pricing): number {
  switch (pricing.kind) {
    case 'free':
      return 0
    case 'per':
      return pricing.credits
    case 'tiers':
      return Math.min(...pricing.tiers.map((tier) => tier.credits))
  }
}
