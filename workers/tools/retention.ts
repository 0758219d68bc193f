// How long a job's outputs are served: the tool's own retention when the catalog gives a shorter one
// (secret outputs), otherwise the service default.
import { getTool, isToolId } from '../../domain/tools/catalog.ts'

export function outputRetentionMs(tool: string, serviceDefaultMs: number): number {
  const own = isToolId(tool) ? getTool(tool).limits.retentionMs : undefined
  return Math.min(serviceDefaultMs, own ?? serviceDefaultMs)
}
