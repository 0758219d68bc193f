// What the tools return as structured content, as zod schemas: the SDK advertises them as each tool's
// outputSchema and checks every result against them, so a drift from the REST shapes fails loudly.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { jobStatuses } from '../../domain/job/events.ts'

/**
 * Spells nullable fields as anyOf and free-form objects as `additionalProperties: true`: zod's
 * `type: [x, "null"]` and `{}` are valid JSON Schema, but clients that map tool schemas onto a
 * single-type dialect (Gemini's OpenAPI subset, for one) reject or drop them.
 */
function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable)
  if (typeof node !== 'object' || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (
      key === 'additionalProperties' &&
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value).length === 0
    )
      out[key] = true
    else out[key] = portable(value)
  }
  const { type } = out
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    delete out.type
    out.anyOf = [{ type: type.find((t) => t !== 'null') }, { type: 'null' }]
  }
  return out
}

/** A refused call: the structured content of every tool error but a failed job's (which is the Job). */
const refusalSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string().nullable(),
    retry_after_seconds: z.int().optional().describe('Wait this long before retrying.'),
  }),
})

/**
 * A tool's outputSchema: its result or a refusal. Some clients (the MCP Inspector among them) check
 * error results against the schema too, so the refusal is part of it. zod validates; the advertised
 * JSON Schema is the portable spelling, with the object root MCP requires.
 */
export function toolOutput(schema: z.ZodObject): StandardSchemaWithJSON {
  const union = z.union([schema, refusalSchema])
  const { $schema: _dialect, ...json } = z.toJSONSchema(union, { io: 'output' })
  const converted = { type: 'object', ...(portable(json) as Record<string, unknown>) }
  const convert = () => converted
  return { '~standard': { ...union['~standard'], jsonSchema: { input: convert, output: convert } } }
}

const jobError = z.object({ code: z.string(), message: z.string(), hint: z.string().nullable() })

const jobFileSchema = z.object({
  name: z.string(),
  bytes: z.int(),
  sha256: z.string(),
  url: z.string().describe('Signed download URL, valid up to 24 hours.'),
})

export const jobSchema = z.object({
  id: z.string(),
  tool: z.string(),
  status: z.enum(jobStatuses),
  input: z.object({ name: z.string(), bytes: z.int(), source: z.string() }),
  options: z.looseObject({}).describe('The options as they run: defaults applied, clamped to the plan.'),
  error: jobError.nullable(),
  result: z
    .looseObject({ files: z.array(jobFileSchema) })
    .nullable()
    .describe('Tool-defined summary plus files.'),
  compute_ms: z.int().nullable(),
  credits_charged: z.int().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  outputs_expire_at: z.string(),
})

export const jobPageSchema = z.object({
  jobs: z.array(jobSchema),
  next_before: z.int().nullable().describe('Pass as before to read the next page; null on the last page.'),
})

export const jobActionSchema = z.object({ id: z.string(), status: z.enum(['canceled', 'deleted']) })

export const fileChunkSchema = z.object({
  name: z.string(),
  offset: z.int(),
  next_offset: z.int().describe('Pass as offset to continue; never falls inside a character.'),
  total_bytes: z.int(),
  eof: z.boolean(),
  text: z.string(),
})

export const downloadLinksSchema = z.object({
  job_id: z.string(),
  status: jobSchema.shape.status,
  files: z.array(jobFileSchema),
  outputs_expire_at: z.string(),
})

export const uploadSchema = z.object({
  upload_id: z.string(),
  method: z.literal('PUT'),
  url: z.string(),
  max_bytes: z.int(),
  expires_at: z.string(),
  instructions: z.string(),
})
