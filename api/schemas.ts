// The spec's resources as zod schemas: request validation, response serialization (no field
// leaks) and the OpenAPI document all come from these.
import { z } from 'zod'
import { jobIdPattern } from '../domain/ids.ts'
import { jobStatuses } from '../domain/job/events.ts'

export const errorBody = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .meta({ id: 'Error' })

/**
 * An integer query parameter from `min` to `max` (`fallback` when absent), written in decimal
 * digits. `z.coerce.number()` alone reads an empty value or spaces as 0, `1e3` as 1000 and `0x10`
 * as 16. The default sits inside, where the OpenAPI document shows it.
 */
export function queryInteger(min: number, max: number, fallback?: number) {
  const integer = z.coerce.number().int().min(min).max(max)
  const digitsOnly = (value: unknown) =>
    typeof value === 'string' && !/^\d+$/.test(value) ? Number.NaN : value
  return fallback === undefined
    ? z.preprocess(digitsOnly, integer)
    : z.preprocess(digitsOnly, integer.default(fallback))
}

const isoDateTime = z.string().meta({ format: 'date-time' })
const nullableDateTime = isoDateTime.nullable()

export const jobFile = z.object({ name: z.string(), bytes: z.int(), sha256: z.string(), url: z.string() })

export const job = z
  .object({
    id: z.string().regex(jobIdPattern),
    tool: z.string(),
    status: z.enum(jobStatuses),
    input: z.object({ name: z.string(), bytes: z.int(), source: z.enum(['upload', 'url', 'body']) }),
    options: z.record(z.string(), z.unknown()),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().nullable() }).nullable(),
    result: z.looseObject({ files: z.array(jobFile) }).nullable(),
    compute_ms: z.int().nullable(),
    credits_charged: z.int().nullable(),
    created_at: isoDateTime,
    started_at: nullableDateTime,
    finished_at: nullableDateTime,
    outputs_expire_at: isoDateTime,
  })
  .meta({ id: 'Job' })

export const jobList = z.object({ jobs: z.array(job), next_before: z.int().nullable() })

export const upload = z
  .object({
    upload_id: z.string(),
    method: z.literal('PUT'),
    url: z.string(),
    max_bytes: z.int(),
    expires_at: isoDateTime,
  })
  .meta({ id: 'Upload' })

export const fileChunk = z
  .object({
    name: z.string(),
    offset: z.int(),
    next_offset: z.int(),
    total_bytes: z.int(),
    eof: z.boolean(),
    text: z.string(),
  })
  .meta({ id: 'FileChunk' })

export const pricing = z.object({
  kind: z.enum(['tiers', 'per', 'free']),
  unit: z.enum(['faces', 'pages']).optional(),
  tiers: z.array(z.object({ upTo: z.int(), credits: z.int() })).optional(),
  per: z.int().optional(),
  credits: z.int().optional(),
  /** A second unit charged on top (extract_pdf: pages read by OCR), `credits` per started `per`. */
  extra: z.object({ unit: z.enum(['ocr_pages']), per: z.int(), credits: z.int() }).optional(),
  description: z.string(),
})

export const tool = z
  .object({
    id: z.string(),
    title: z.string(),
    summary: z.string(),
    description: z.string(),
    toolset: z.string(),
    input_extensions: z.array(z.string()),
    input: z.object({ kind: z.enum(['file', 'parameters']), sources: z.array(z.string()) }),
    options: z.record(z.string(), z.unknown()),
    limits: z.record(z.string(), z.unknown()),
    pricing,
    idempotency_required: z.boolean(),
    jobs: z.string(),
    mcp: z.string(),
  })
  .meta({ id: 'Tool' })

export const me = z
  .object({
    id: z.string(),
    login: z.string(),
    email: z.string().nullable(),
    plan: z.string(),
    limits: z.record(z.string(), z.unknown()),
    auth: z.enum(['oauth', 'key']),
    usage: z.object({
      jobs_last_24h: z.int(),
      active_jobs: z.int(),
      jobs_last_24h_by_tool: z.record(z.string(), z.int()),
      /** Upload URLs waiting for their file, and bytes kept (uploads, job inputs and outputs). */
      pending_uploads: z.int().optional(),
      stored_bytes: z.int().optional(),
    }),
    credits: z.object({
      balance: z.int(),
      next_expiry: z.object({ credits: z.int(), at: isoDateTime }).nullable(),
    }),
  })
  .meta({ id: 'Me' })

export const billing = z
  .object({
    balance: z.int(),
    lots: z.array(
      z.object({
        kind: z.enum(['signup', 'pack', 'subscription', 'adjustment']),
        credits: z.int(),
        remaining: z.int(),
        expires_at: isoDateTime,
        created_at: isoDateTime,
      }),
    ),
    spent_last_30_days_by_tool: z.record(z.string(), z.int()),
    entries: z.array(
      z.object({
        kind: z.enum(['grant', 'charge', 'refund', 'expire', 'clawback']),
        amount: z.int(),
        job_id: z.string().nullable(),
        tool: z.string().nullable(),
        created_at: isoDateTime,
      }),
    ),
    frozen: z.boolean(),
    portal: z.boolean(),
    subscription: z
      .object({
        plan: z.string(),
        status: z.string(),
        renews_at: nullableDateTime,
        ends_at: nullableDateTime,
      })
      .nullable(),
  })
  .meta({ id: 'Billing' })

export const catalogItem = z
  .object({
    id: z.string(),
    kind: z.enum(['pack', 'bundle']),
    name: z.string(),
    priceUsd: z.number(),
    credits: z.int(),
    terms: z.string().nullable(),
  })
  .meta({ id: 'CatalogItem' })

export const catalog = z.object({ available: z.boolean(), items: z.array(catalogItem) })

export const keyRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    created_at: isoDateTime,
    last_used_at: nullableDateTime,
  })
  .meta({ id: 'ApiKey' })

export const createdKey = keyRecord.extend({ key: z.string() })

export const jobIdParam = z.object({ id: z.string().min(1).max(64) })

/** Error responses a route may give, by status. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, errorBody]))
