// Options as they run: parsed by the tool's schema (defaults applied), clamped to the plan, or
// refused with invalid_options and a message that says what to fix.
import { z } from 'zod'
import { DomainError } from '../../domain/errors.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'

export interface Plan {
  maxParts: number
}

export const defaultPlan: Plan = { maxParts: 64 }

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : 'options'
      if (issue.code === 'unrecognized_keys')
        return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (remove ${issue.keys.length > 1 ? 'them' : 'it'})`
      return `${path}: ${issue.message}`
    })
    .join('; ')
}

export function resolveOptions(
  tool: ToolDefinition,
  raw: unknown,
  plan: Plan = defaultPlan,
): Record<string, unknown> {
  const parsed = tool.options.safeParse(raw ?? {})
  if (!parsed.success) {
    throw new DomainError(
      'invalid_options',
      `Invalid options for ${tool.id}: ${describeIssues(parsed.error.issues)}.`,
      {
        hint: `See the options schema of ${tool.id} in GET /v1/tools.`,
      },
    )
  }
  const options = { ...(parsed.data as Record<string, unknown>) }
  if (tool.id === 'split_3d_model' && typeof options.max_parts === 'number')
    options.max_parts = Math.min(options.max_parts, plan.maxParts)
  return options
}

/**
 * Options given as query parameters arrive as strings: coerce them by the schema's JSON types (an
 * array of strings is given comma-separated, e.g. `languages=eng,deu`).
 */
export function coerceQueryOptions(
  query: Record<string, string | undefined>,
  jsonSchema: { properties?: Record<string, { type?: string | string[]; anyOf?: { type?: string }[] }> },
) {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    const property = jsonSchema.properties?.[key]
    const types = new Set(
      [property?.type, ...(property?.anyOf ?? []).map((t) => t.type)].flat().filter(Boolean),
    )
    if (value === 'null' && types.has('null')) out[key] = null
    else if (
      (types.has('integer') || types.has('number')) &&
      value.trim() !== '' &&
      !Number.isNaN(Number(value))
    )
      out[key] = Number(value)
    else if (types.has('boolean') && (value === 'true' || value === 'false')) out[key] = value === 'true'
    else if (types.has('array')) out[key] = value.split(',').map((item) => item.trim())
    else out[key] = value
  }
  return out
}

const optionSchemas = new Map<string, Record<string, unknown>>()

/** A tool's options as JSON Schema (the input side: defaults are optional), computed once per tool. */
export function optionsJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  let schema = optionSchemas.get(tool.id)
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(tool.options, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>
    schema = rest
    optionSchemas.set(tool.id, schema)
  }
  return schema
}
