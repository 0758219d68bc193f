// How long a job's outputs are served. Secret outputs go sooner than the service default; this is the
// workers' own table until the catalog carries a per-tool retention.
import type { ToolId } from '../../domain/tools/catalog.ts'

const retentionByTool: Partial<Record<ToolId, number>> = {
  get_random_bytes: 5 * 60_000,
}

export function outputRetentionMs(tool: string, serviceDefaultMs: number): number {
  return Math.min(serviceDefaultMs, retentionByTool[tool as ToolId] ?? serviceDefaultMs)
}
