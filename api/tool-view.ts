// A catalog tool as clients see it: options as JSON Schema, the caller's limits, where to call it.
import { optionsJsonSchema } from '../app/jobs/options.ts'
import type { ToolDefinition } from '../domain/tools/catalog.ts'

export function toolLimits(tool: ToolDefinition, purchased: boolean) {
  const unit = tool.pricing.kind === 'free' ? null : (tool.pricing.unit ?? null)
  return {
    jobs_per_day: purchased ? tool.limits.jobsPerDay : tool.limits.jobsPerDayBeforePurchase,
    jobs_per_day_after_purchase: tool.limits.jobsPerDay,
    max_bytes: tool.limits.maxBytes,
    max_units: tool.limits.maxUnits,
    unit,
    timeout_seconds: Math.round(tool.limits.timeoutMs / 1000),
  }
}

export function toolView(tool: ToolDefinition, publicUrl: string, purchased: boolean) {
  return {
    id: tool.id,
    title: tool.title,
    summary: tool.summary,
    description: tool.description,
    toolset: tool.toolset,
    input_extensions: tool.input.extensions,
    input: { kind: tool.input.kind, sources: tool.input.sources },
    options: optionsJsonSchema(tool),
    limits: toolLimits(tool, purchased),
    pricing: tool.pricing,
    idempotency_required: tool.idempotencyRequired,
    jobs: `${publicUrl}/v1/tools/${tool.id}/jobs`,
    mcp: `${publicUrl}/mcp/${tool.toolset}`,
  }
}
