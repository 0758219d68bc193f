// Which providers serve which generation tool, from the environment. A tool with no provider is not
// offered at all (app/generation/availability.ts), so this is also the one place that knows the
// variables an operator sets to switch a tool on.
import { readFileSync } from 'node:fs'
import type { DownloadPolicy } from './download.ts'
import { falImageTo3dProvider, falTextTo3dProvider } from './fal-3d.ts'
import { falImageProvider } from './fal-image.ts'
import type { FalConfig } from './fal-queue.ts'
import { openAiImageProvider } from './openai-images.ts'
import type { ImageProvider, ImageTo3dProvider, TextTo3dProvider } from './port.ts'

type Env = Record<string, string | undefined>

export type GenerationToolId = 'create_image' | 'create_3d_model' | 'create_3d_model_from_image'

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== ''
const int = (value: string | undefined, fallback: number) =>
  set(value) ? Number.parseInt(value, 10) : fallback
const list = (value: string | undefined) =>
  set(value)
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : []

/** What switches each tool on, for the "not available" message and the README. */
export const requiredConfiguration: Record<GenerationToolId, string> = {
  create_image: 'OPENAI_API_KEY, or FAL_KEY with FAL_IMAGE_MODEL',
  create_3d_model: 'FAL_KEY with FAL_TEXT_TO_3D_MODEL',
  create_3d_model_from_image: 'FAL_KEY with FAL_IMAGE_TO_3D_MODEL',
}

export function isConfigured(tool: GenerationToolId, env: Env): boolean {
  const fal = set(env.FAL_KEY)
  switch (tool) {
    case 'create_image':
      return set(env.OPENAI_API_KEY) || (fal && set(env.FAL_IMAGE_MODEL))
    case 'create_3d_model':
      return fal && set(env.FAL_TEXT_TO_3D_MODEL)
    case 'create_3d_model_from_image':
      return fal && set(env.FAL_IMAGE_TO_3D_MODEL)
  }
}

/**
 * Where provider result files may be downloaded from. In production only the public internet;
 * the three GENERATION_DOWNLOAD_* exemptions exist for tests against a local HTTPS server.
 */
export function downloadPolicyFromEnv(env: Env): DownloadPolicy {
  return {
    maxBytes: int(env.GENERATION_DOWNLOAD_MAX_BYTES, 200 * 1024 * 1024),
    timeoutMs: int(env.GENERATION_DOWNLOAD_TIMEOUT_MS, 120_000),
    allowedPorts: list(env.GENERATION_DOWNLOAD_ALLOWED_PORTS).map(Number),
    allowAddresses: new Set(list(env.GENERATION_DOWNLOAD_ALLOW_ADDRESSES)),
    ca: set(env.GENERATION_DOWNLOAD_CA_FILE)
      ? readFileSync(env.GENERATION_DOWNLOAD_CA_FILE, 'utf8')
      : undefined,
  }
}

function falConfig(env: Env): FalConfig {
  return {
    key: env.FAL_KEY ?? '',
    baseUrl: (env.FAL_BASE_URL || 'https://queue.fal.run').replace(/\/$/, ''),
    pollIntervalMs: int(env.FAL_POLL_INTERVAL_MS, 1000),
  }
}

/** Image providers in order of preference: OpenAI first, since it also draws transparent backgrounds. */
export function imageProviders(env: Env): ImageProvider[] {
  const providers: ImageProvider[] = []
  if (set(env.OPENAI_API_KEY)) {
    const baseUrl = (env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, '')
    providers.push(
      openAiImageProvider({
        apiKey: env.OPENAI_API_KEY,
        model: env.OPENAI_IMAGE_MODEL || 'gpt-image-1',
        baseUrl,
      }),
    )
  }
  if (set(env.FAL_KEY) && set(env.FAL_IMAGE_MODEL))
    providers.push(falImageProvider(falConfig(env), env.FAL_IMAGE_MODEL, downloadPolicyFromEnv(env)))
  return providers
}

export function textTo3dProvider(env: Env): TextTo3dProvider | null {
  if (!isConfigured('create_3d_model', env)) return null
  return falTextTo3dProvider(falConfig(env), env.FAL_TEXT_TO_3D_MODEL!, downloadPolicyFromEnv(env))
}

export function imageTo3dProvider(env: Env): ImageTo3dProvider | null {
  if (!isConfigured('create_3d_model_from_image', env)) return null
  return falImageTo3dProvider(
    falConfig(env),
    env.FAL_IMAGE_TO_3D_MODEL!,
    env.FAL_IMAGE_TO_3D_INPUT_FIELD || 'image_url',
    downloadPolicyFromEnv(env),
  )
}
