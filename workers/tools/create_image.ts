// create_image: one image from a prompt at the first configured provider that can draw it (a
// transparent background needs one that supports it), delivered as image.png.

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generationConfig } from '../../app/config.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { CreateImageOptions } from '../../domain/tools/options/create_image.ts'
import { callProvider } from '../generation/call-provider.ts'
import { imageInfo } from '../generation/image-size.ts'
import { imageProviders } from '../providers/config.ts'
import type { ImageProvider } from '../providers/port.ts'

function providerFor(options: CreateImageOptions): ImageProvider {
  const providers = imageProviders(generationConfig())
  if (providers.length === 0)
    throw new DomainError('not_found', 'No image provider is configured on this worker.', {
      hint: 'Retry later; failed jobs cost nothing.',
    })
  const able = providers.find((p) => !options.transparent_background || p.supportsTransparency)
  if (!able) {
    throw new DomainError(
      'invalid_options',
      `The configured image provider (${providers.map((p) => p.source).join(', ')}) cannot draw transparent backgrounds.`,
      {
        hint: 'Start the job with transparent_background false.',
      },
    )
  }
  return able
}

export const runner: ToolRunner<CreateImageOptions> = {
  // Choosing the provider here refuses an impossible request before anything is charged.
  async measure(_input, options) {
    providerFor(options)
    return { units: 1 }
  },
  async run(_input, options, context) {
    const provider = providerFor(options)
    const [width, height] = options.size.split('x').map(Number) as [number, number]
    context.progress(0.05, 'sending the prompt to the provider')
    const generation = await callProvider(
      context,
      { rateLimitBudgetMs: generationConfig().rateLimitWaitMs, fraction: 0.5 },
      (call) =>
        provider.generateImage(
          {
            prompt: options.prompt,
            width,
            height,
            transparentBackground: options.transparent_background,
            seed: options.seed,
          },
          call,
        ),
    )
    const info = imageInfo(generation.file.bytes)
    if (info?.format !== 'png') {
      throw new DomainError(
        'upstream_failed',
        `${generation.source} returned a file that is not a PNG image. The charge was returned.`,
        { hint: 'Retry later with a new idempotency key.' },
      )
    }
    await writeFile(join(context.outDir, 'image.png'), generation.file.bytes)
    return {
      summary: {
        provider: generation.source,
        width: info.width,
        height: info.height,
        transparent_background: options.transparent_background,
        seed: options.seed ?? null,
        notes: generation.notes,
      },
    }
  },
}
