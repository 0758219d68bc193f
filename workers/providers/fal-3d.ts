// Text-to-3D and image-to-3D on fal. Models differ in where they put the GLB (Trellis and Tripo:
// model_mesh; Meshy: model_glb or model_urls.glb; some: pbr_model, base_model), so the first GLB
// found in those places is taken. The input image travels inline as a data URI, which fal accepts
// wherever it takes a file URL: no third-party upload of the caller's image is needed.
import { type DownloadPolicy, downloadResult } from './download.ts'
import { type FalConfig, runFalQueue } from './fal-queue.ts'
import {
  type Generation,
  type ImageTo3dProvider,
  type ImageTo3dRequest,
  type ProviderCall,
  ProviderError,
  type TextTo3dProvider,
  type TextTo3dRequest,
} from './port.ts'

type FileRef = { url?: string } | string | undefined

interface Fal3dOutput {
  model_glb?: FileRef
  model_mesh?: FileRef
  model_urls?: { glb?: FileRef }
  pbr_model?: FileRef
  base_model?: FileRef
}

const urlOf = (ref: FileRef) => (typeof ref === 'string' ? ref : ref?.url)

function glbUrl(output: Fal3dOutput): string {
  const url = [
    output.model_glb,
    output.model_mesh,
    output.model_urls?.glb,
    output.pbr_model,
    output.base_model,
  ]
    .map(urlOf)
    .find(Boolean)
  if (!url) throw new ProviderError('failed', 'fal', 'fal answered without a model file URL.')
  return url
}

async function runModel(
  config: FalConfig,
  model: string,
  input: Record<string, unknown>,
  download: DownloadPolicy,
  call: ProviderCall,
): Promise<Generation> {
  const output = (await runFalQueue(config, model, input, call)) as Fal3dOutput
  const url = glbUrl(output)
  call.onStatus('downloading the model')
  return {
    file: { bytes: await downloadResult('fal', url, download), extension: 'glb' },
    source: `fal/${model}`,
    notes: [],
  }
}

const seedOf = (seed: number | undefined) => (seed === undefined ? {} : { seed })

export function falTextTo3dProvider(
  config: FalConfig,
  model: string,
  download: DownloadPolicy,
): TextTo3dProvider {
  return {
    source: `fal/${model}`,
    generateFromText: (request: TextTo3dRequest, call: ProviderCall) =>
      runModel(config, model, { prompt: request.description, ...seedOf(request.seed) }, download, call),
  }
}

/** `imageField`: the input name the model reads the picture from (image_url for Trellis and Tripo, input_image_url for Hunyuan3D). */
export function falImageTo3dProvider(
  config: FalConfig,
  model: string,
  imageField: string,
  download: DownloadPolicy,
): ImageTo3dProvider {
  return {
    source: `fal/${model}`,
    generateFromImage: (request: ImageTo3dRequest, call: ProviderCall) => {
      const dataUri = `data:${request.mimeType};base64,${Buffer.from(request.image).toString('base64')}`
      return runModel(config, model, { [imageField]: dataUri, ...seedOf(request.seed) }, download, call)
    },
  }
}
