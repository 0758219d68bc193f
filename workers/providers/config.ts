// Which providers serve which generation tool, built from the generation configuration
// (app/config.ts reads it from the environment).
import { readFileSync } from 'node:fs'
import type { GenerationConfig } from '../../app/config.ts'
import type { DownloadPolicy } from './download.ts'
import { falImageTo3dProvider, falTextTo3dProvider } from './fal-3d.ts'
import { falImageProvider } from './fal-image.ts'
import { openAiImageProvider } from './openai-images.ts'
import type { ImageProvider, ImageTo3dProvider, TextTo3dProvider } from './port.ts'

/** Where provider result files may be downloaded from: the public internet, plus the test exemptions. */
export function downloadPolicy(config: GenerationConfig): DownloadPolicy {
  const { caFile, ...policy } = config.download
  return { ...policy, ca: caFile === null ? undefined : readFileSync(caFile, 'utf8') }
}

/** Image providers in order of preference: OpenAI first, since it also draws transparent backgrounds. */
export function imageProviders(config: GenerationConfig): ImageProvider[] {
  const providers: ImageProvider[] = []
  if (config.openai) providers.push(openAiImageProvider(config.openai))
  if (config.fal && config.falModels.image)
    providers.push(falImageProvider(config.fal, config.falModels.image, downloadPolicy(config)))
  return providers
}

export function textTo3dProvider(config: GenerationConfig): TextTo3dProvider | null {
  if (!config.fal || !config.falModels.textTo3d) return null
  return falTextTo3dProvider(config.fal, config.falModels.textTo3d, downloadPolicy(config))
}

export function imageTo3dProvider(config: GenerationConfig): ImageTo3dProvider | null {
  if (!config.fal || !config.falModels.imageTo3d) return null
  return falImageTo3dProvider(
    config.fal,
    config.falModels.imageTo3d,
    config.falModels.imageTo3dInputField,
    downloadPolicy(config),
  )
}
