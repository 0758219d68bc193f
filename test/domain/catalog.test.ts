import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  apiKeyPrefix,
  jobIdPattern,
  newJobId,
  newSecret,
  newUploadId,
  randomString,
  secretShape,
  uploadIdPattern,
} from '../../domain/ids.ts'
import { getTool, toolCatalog, toolIds } from '../../domain/tools/catalog.ts'
import { priceFor, smallestPrice } from '../../domain/tools/pricing.ts'

describe('pricing', () => {
  const tiers = {
    kind: 'tiers' as const,
    unit: 'faces' as const,
    tiers: [
      { upTo: 100, credits: 2 },
      { upTo: 1000, credits: 5 },
    ],
    description: '',
  }

  it('tiers: the first tier the input fits in', () => {
    expect(priceFor(tiers, 0)).toBe(2)
    expect(priceFor(tiers, 100)).toBe(2)
    expect(priceFor(tiers, 101)).toBe(5)
    expect(priceFor(tiers, 1000)).toBe(5)
  })

  it("tiers: beyond the last tier, the last tier's price again for each further upTo units started", () => {
    expect(priceFor(tiers, 1001)).toBe(10)
    expect(priceFor(tiers, 2000)).toBe(10)
    expect(priceFor(tiers, 2001)).toBe(15)
  })

  it('per: credits for every started block; free: nothing', () => {
    const per = { kind: 'per' as const, unit: 'pages' as const, per: 10, credits: 1, description: '' }
    expect(priceFor(per, 1)).toBe(1)
    expect(priceFor(per, 10)).toBe(1)
    expect(priceFor(per, 11)).toBe(2)
    expect(priceFor({ kind: 'free', description: '' }, 500)).toBe(0)
    expect(smallestPrice(tiers)).toBe(2)
    expect(smallestPrice(per)).toBe(1)
  })

  it('per with an extra unit: the extra units are charged on top, nothing for none', () => {
    const extra = {
      kind: 'per' as const,
      unit: 'pages' as const,
      per: 10,
      credits: 1,
      extra: { unit: 'ocr_pages' as const, per: 2, credits: 1 },
      description: '',
    }
    expect(priceFor(extra, 10)).toBe(1)
    expect(priceFor(extra, 10, 0)).toBe(1)
    expect(priceFor(extra, 10, 1)).toBe(2)
    expect(priceFor(extra, 10, 3)).toBe(3)
    expect(priceFor(extra, 500, 500)).toBe(300)
    expect(smallestPrice(extra)).toBe(1)
  })
})

describe('tool catalog', () => {
  it('has all ten tools, each with agent-facing text and a pricing sentence', () => {
    expect([...toolCatalog.keys()].sort()).toEqual([...toolIds].sort())
    for (const tool of toolCatalog.values()) {
      expect(tool.description.length).toBeGreaterThan(80)
      expect(tool.pricing.description).not.toBe('')
      expect(['3d', 'image', 'pdf', 'random']).toContain(tool.toolset)
    }
  })

  it('advertises idempotency_required exactly for the spec list', () => {
    const required = [...toolCatalog.values()]
      .filter((t) => t.idempotencyRequired)
      .map((t) => t.id)
      .sort()
    expect(required).toEqual([
      'create_3d_model',
      'create_3d_model_from_image',
      'create_image',
      'get_random_numbers',
      'optimize_3d_model',
    ])
  })

  it('split_3d_model options are exactly the spec table, with its defaults, and refuse other properties', () => {
    const split = getTool('split_3d_model').options
    expect(split.parse({})).toEqual({
      detail: 'medium',
      min_part_faces: 0,
      format: 'glb',
      preprocess: 'auto',
      segmented: true,
    })
    const schema = z.toJSONSchema(split, { io: 'input' }) as {
      properties: Record<string, unknown>
      additionalProperties: boolean
    }
    expect(Object.keys(schema.properties).sort()).toEqual([
      'density',
      'detail',
      'format',
      'max_parts',
      'min_part_area',
      'min_part_faces',
      'preprocess',
      'segmented',
    ])
    expect(schema.additionalProperties).toBe(false)
    expect(split.safeParse({ colour: 'red' }).success).toBe(false)
    expect(split.safeParse({ max_parts: 65 }).success).toBe(false)
    expect(split.safeParse({ min_part_area: 1 }).success).toBe(false)
    expect(split.safeParse({ density: 0 }).success).toBe(false)
    expect(split.safeParse({ min_part_area: null, density: null }).success).toBe(true)
  })

  it('random numbers: bounds and uniqueness are checked', () => {
    const o = getTool('get_random_numbers').options
    expect(o.safeParse({ count: 1001 }).success).toBe(false)
    expect(o.safeParse({ count: 5, min: 1, max: 3, unique: true }).success).toBe(false)
    expect(o.safeParse({ min: 5, max: 1 }).success).toBe(false)
    expect(o.safeParse({ count: 3, min: 1, max: 3, unique: true }).success).toBe(true)
  })
})

describe('ids', () => {
  it('job and upload ids have the spec shape', () => {
    expect(newJobId(randomBytes, Date.now())).toMatch(jobIdPattern)
    expect(newUploadId(randomBytes)).toMatch(uploadIdPattern)
  })

  it('job ids sort by creation time, and ids made in the same millisecond differ', () => {
    const times = [0, 1, 35, 36, 1_700_000_000_000, Date.parse('2026-11-27T18:00:00Z'), 36 ** 9 - 1]
    const ids = times.map((ms) => newJobId(randomBytes, ms))
    for (const id of ids) expect(id).toMatch(jobIdPattern)
    expect([...ids].sort()).toEqual(ids)
    const sameTime = Array.from({ length: 1000 }, () => newJobId(randomBytes, times[4]!))
    expect(new Set(sameTime).size).toBe(1000)
    expect(new Set(sameTime.map((id) => id.slice(0, 11))).size).toBe(1)
  })

  it('secrets carry the fixed prefix and 43 base62 characters', () => {
    const secret = newSecret(randomBytes, apiKeyPrefix)
    expect(secret).toMatch(secretShape)
    expect(secret.startsWith('kiln_sk_')).toBe(true)
  })

  it('draws characters without modulo bias', () => {
    // 250 and above are rejected for a 10-character alphabet, so 255 never maps to '5'.
    const fixed = (size: number) => new Uint8Array(size).fill(255)
    let calls = 0
    const mostlyHigh = (size: number) => (calls++ === 0 ? fixed(size) : new Uint8Array(size).fill(7))
    expect(randomString(mostlyHigh, '0123456789', 4)).toBe('7777')
  })
})
