// create_3d_model_from_image: a model from one picture (PNG, JPEG or WebP up to 20 MB and 25
// megapixels, checked from the file's own header) at the configured image-to-3D provider, finished
// like create_3d_model.

import { readFile } from 'node:fs/promises'
import { generationConfig } from '../../app/config.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolInputFile, ToolRunner } from '../../domain/ports/tool-runner.ts'
import { getTool } from '../../domain/tools/catalog.ts'
import type { Create3dModelFromImageOptions } from '../../domain/tools/options/create_3d_model_from_image.ts'
import { callProvider } from '../generation/call-provider.ts'
import { modelOutput } from '../generation/glb-output.ts'
import { type ImageInfo, imageInfo } from '../generation/image-size.ts'
import { imageTo3dProvider } from '../providers/config.ts'

const maxBytes = getTool('create_3d_model_from_image').limits.maxBytes!
const maxPixels = 25_000_000

function provider() {
  const configured = imageTo3dProvider(generationConfig())
  if (!configured)
    throw new DomainError('not_found', 'No image-to-3D provider is configured on this worker.', {
      hint: 'Retry later; failed jobs cost nothing.',
    })
  return configured
}

async function checkedImage(input: ToolInputFile | null): Promise<{ bytes: Uint8Array; info: ImageInfo }> {
  if (!input) throw new DomainError('invalid_request', 'create_3d_model_from_image needs an image.')
  if (input.bytes > maxBytes)
    throw new DomainError(
      'limit_exceeded',
      `The image has ${input.bytes} bytes; the limit is ${maxBytes} (20 MB).`,
      { hint: 'Resize or recompress the image.' },
    )
  const bytes = await readFile(input.path)
  const info = imageInfo(bytes)
  if (!info)
    throw new DomainError('unsupported_format', `${input.name} is not a PNG, JPEG or WebP image.`, {
      hint: 'Convert the image to PNG, JPEG or WebP.',
    })
  if (info.width * info.height > maxPixels) {
    throw new DomainError(
      'limit_exceeded',
      `The image is ${info.width}×${info.height} pixels (${((info.width * info.height) / 1e6).toFixed(1)} megapixels); the limit is 25 megapixels.`,
      {
        hint: 'Resize the image.',
      },
    )
  }
  return { bytes, info }
}

export const runner: ToolRunner<Create3dModelFromImageOptions> = {
  async measure(input) {
    provider()
    await checkedImage(input)
    return { units: 1 }
  },
  async run(input, options, context) {
    const configured = provider()
    const { bytes, info } = await checkedImage(input)
    context.progress(0.05, 'sending the image to the provider')
    const generation = await callProvider(
      context,
      { rateLimitBudgetMs: generationConfig().rateLimitWaitMs, fraction: 0.4 },
      (call) =>
        configured.generateFromImage({ image: bytes, mimeType: info.mimeType, seed: options.seed }, call),
    )
    return modelOutput(generation, context, {
      seed: options.seed ?? null,
      image: { width: info.width, height: info.height, format: info.format },
    })
  },
}
