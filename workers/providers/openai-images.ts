// OpenAI Images API (POST /v1/images/generations) for gpt-image-1 style models: the image comes back
// inline as base64 (`b64_json`), a transparent background is asked for with `background`, and
// errors carry {error: {type, code, message}}. The model has no seed parameter.
import { providerFetch, readJson, retryAfterSeconds } from './http.ts'
import {
  type Generation,
  type ImageProvider,
  type ImageRequest,
  type ProviderCall,
  ProviderError,
} from './port.ts'

export interface OpenAiConfig {
  apiKey: string
  model: string
  /** Up to and including /v1, e.g. https://api.openai.com/v1. */
  baseUrl: string
}

interface OpenAiError {
  error?: { type?: string; code?: string | null; message?: string }
}

interface ImagesResponse {
  data?: { b64_json?: string }[]
}

const provider = 'openai'
const refusalCodes = new Set(['moderation_blocked', 'content_policy_violation'])

export function openAiImageProvider(config: OpenAiConfig): ImageProvider {
  return {
    source: `${provider}/${config.model}`,
    supportsTransparency: true,
    async generateImage(request: ImageRequest, call: ProviderCall): Promise<Generation> {
      call.onStatus('generating the image')
      const response = await providerFetch(
        provider,
        `${config.baseUrl}/images/generations`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: config.model,
            prompt: request.prompt,
            n: 1,
            size: `${request.width}x${request.height}`,
            background: request.transparentBackground ? 'transparent' : 'opaque',
            output_format: 'png',
          }),
        },
        call.signal,
      )
      const body = await readJson(provider, response)
      if (!response.ok) throw failureOf(response, body as OpenAiError)
      const encoded = (body as ImagesResponse).data?.[0]?.b64_json
      if (!encoded)
        throw new ProviderError('failed', provider, 'OpenAI answered without an image (no data[0].b64_json).')
      const notes =
        request.seed === undefined ? [] : [`${config.model} takes no seed; the seed was not used.`]
      return { file: { bytes: Buffer.from(encoded, 'base64'), extension: 'png' }, source: this.source, notes }
    },
  }
}

function failureOf(response: Response, body: OpenAiError): ProviderError {
  const code = body.error?.code ?? body.error?.type ?? `HTTP ${response.status}`
  if (response.status === 429) {
    // insufficient_quota is a billing state of our OpenAI account, not a limit that passes.
    if (code === 'insufficient_quota')
      return new ProviderError('failed', provider, 'The OpenAI account of this service is out of quota.')
    return new ProviderError(
      'rate_limited',
      provider,
      'OpenAI is limiting requests.',
      retryAfterSeconds(response.headers),
    )
  }
  if (refusalCodes.has(code))
    return new ProviderError('refused', provider, `OpenAI's safety system refused the prompt (${code}).`)
  if (response.status === 401 || response.status === 403)
    return new ProviderError(
      'failed',
      provider,
      `OpenAI refused this service's credentials (HTTP ${response.status}).`,
    )
  if (response.status === 408 || response.status === 504)
    return new ProviderError('timeout', provider, `OpenAI timed out (HTTP ${response.status}).`)
  return new ProviderError('failed', provider, `OpenAI answered HTTP ${response.status} (${code}).`)
}
