// Text-to-image on fal (FLUX-style models, e.g. fal-ai/flux/schnell): input {prompt, image_size,
// seed, output_format}, output {images: [{url}], has_nsfw_concepts}. A flagged image comes back
// blacked out, so it is a refusal, not a result.
import { type DownloadPolicy, downloadResult } from './download.ts'
import { type FalConfig, runFalQueue } from './fal-queue.ts'
import {
  type Generation,
  type ImageProvider,
  type ImageRequest,
  type ProviderCall,
  ProviderError,
} from './port.ts'

interface FalImageOutput {
  images?: { url?: string }[]
  has_nsfw_concepts?: boolean[]
}

export function falImageProvider(config: FalConfig, model: string, download: DownloadPolicy): ImageProvider {
  return {
    source: `fal/${model}`,
    supportsTransparency: false,
    async generateImage(request: ImageRequest, call: ProviderCall): Promise<Generation> {
      const input = {
        prompt: request.prompt,
        image_size: { width: request.width, height: request.height },
        num_images: 1,
        output_format: 'png',
        enable_safety_checker: true,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
      }
      const output = (await runFalQueue(config, model, input, call)) as FalImageOutput
      if (output.has_nsfw_concepts?.[0])
        throw new ProviderError('refused', 'fal', "fal's safety checker flagged the image.")
      const url = output.images?.[0]?.url
      if (!url) throw new ProviderError('failed', 'fal', 'fal answered without an image URL.')
      call.onStatus('downloading the image')
      return {
        file: { bytes: await downloadResult('fal', url, download), extension: 'png' },
        source: this.source,
        notes: [],
      }
    },
  }
}
