// A generation tool exists for clients only while a provider for it is configured: it is left out
// of GET /v1/tools, and starting a job answers 404 naming the variables that would switch it on.
// The environment is read on each question, so an operator's change shows without a restart.
import { DomainError } from '../../domain/errors.ts'
import { getTool, isToolId } from '../../domain/tools/catalog.ts'
import { type GenerationConfig, type GenerationToolId, generationConfig } from '../config.ts'

type Env = Record<string, string | undefined>

/** What switches each tool on, for the "not available" message and the README. */
export const requiredConfiguration: Record<GenerationToolId, string> = {
  create_image: 'OPENAI_API_KEY, or FAL_KEY with FAL_IMAGE_MODEL',
  create_3d_model: 'FAL_KEY with FAL_TEXT_TO_3D_MODEL',
  create_3d_model_from_image: 'FAL_KEY with FAL_IMAGE_TO_3D_MODEL',
}

export function isConfigured(tool: GenerationToolId, config: GenerationConfig): boolean {
  switch (tool) {
    case 'create_image':
      return config.openai !== null || (config.fal !== null && config.falModels.image !== null)
    case 'create_3d_model':
      return config.fal !== null && config.falModels.textTo3d !== null
    case 'create_3d_model_from_image':
      return config.fal !== null && config.falModels.imageTo3d !== null
  }
}

export function isToolAvailable(toolId: string, env: Env = process.env): boolean {
  if (!isToolId(toolId)) return false
  return !getTool(toolId).generation || isConfigured(toolId as GenerationToolId, generationConfig(env))
}

export function requireAvailableTool(toolId: string, env: Env = process.env): void {
  if (isToolAvailable(toolId, env) || !isToolId(toolId)) return
  throw new DomainError(
    'not_found',
    `${toolId} is not available on this server: no generation provider is configured for it (the operator sets ${requiredConfiguration[toolId as GenerationToolId]}).`,
  )
}
