// A generation tool exists for clients only while a provider for it is configured: it is left out
// of GET /v1/tools, and starting a job answers 404 naming the variables that would switch it on.
import { DomainError } from '../../domain/errors.ts'
import { getTool, isToolId } from '../../domain/tools/catalog.ts'
import { type GenerationToolId, isConfigured, requiredConfiguration } from '../../workers/providers/config.ts'

type Env = Record<string, string | undefined>

export function isToolAvailable(toolId: string, env: Env = process.env): boolean {
  if (!isToolId(toolId)) return false
  return !getTool(toolId).generation || isConfigured(toolId as GenerationToolId, env)
}

export function requireAvailableTool(toolId: string, env: Env = process.env): void {
  if (isToolAvailable(toolId, env) || !isToolId(toolId)) return
  throw new DomainError(
    'not_found',
    `${toolId} is not available on this server: no generation provider is configured for it (the operator sets ${requiredConfiguration[toolId as GenerationToolId]}).`,
  )
}
