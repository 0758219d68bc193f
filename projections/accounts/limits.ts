// The limits Me reports: the spec's account-wide limits, and each tool's from the catalog, with the
// daily cap that applies to this account (lower until its first purchase).
import { toolCatalog } from '../../domain/tools/catalog.ts'

const MB = 1024 * 1024

export const accountLimits = {
  active_jobs: 1,
  upload_bytes: 50 * MB,
  result_retention_hours: 24,
  download_url_validity_hours: 24,
  upload_url_validity_hours: 1,
  active_api_keys: 10,
  new_api_keys_per_day: 20,
  api_key_name_length: 60,
  idempotency_key_length: 100,
  job_list_page: 100,
  file_chunk_bytes: 100_000,
  billing_entries: 50,
} as const

export interface ToolLimitsView {
  jobs_per_day: number
  jobs_per_day_before_purchase: number
  jobs_per_day_after_purchase: number
  max_units: number | null
  max_bytes: number | null
  timeout_seconds: number
}

export type LimitsView = typeof accountLimits & { tools: Record<string, ToolLimitsView> }

export function limitsFor(purchased: boolean): LimitsView {
  const tools: Record<string, ToolLimitsView> = {}
  for (const tool of toolCatalog.values()) {
    const { jobsPerDay, jobsPerDayBeforePurchase, maxUnits, maxBytes, timeoutMs } = tool.limits
    tools[tool.id] = {
      jobs_per_day: purchased ? jobsPerDay : jobsPerDayBeforePurchase,
      jobs_per_day_before_purchase: jobsPerDayBeforePurchase,
      jobs_per_day_after_purchase: jobsPerDay,
      max_units: maxUnits,
      max_bytes: maxBytes,
      timeout_seconds: timeoutMs / 1000,
    }
  }
  return { ...accountLimits, tools }
}
