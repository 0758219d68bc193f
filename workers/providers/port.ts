// The provider port: what a generation tool asks of an upstream API, whichever vendor serves it.
// Adapters speak their vendor's wire format and report failures as ProviderError, so the tools
// decide once how a refusal, a failure or a rate limit becomes a job error.

export interface ProviderCall {
  signal: AbortSignal
  /** A short, prompt-free status line for the job's progress (queue position, "rendering"). */
  onStatus(message: string): void
}

export interface GeneratedFile {
  bytes: Uint8Array
  /** Lower-case extension without the dot: png, glb. */
  extension: string
}

export interface Generation {
  file: GeneratedFile
  /** Which upstream made it: `provider/model`, for the job result. */
  source: string
  notes: string[]
}

export interface ImageRequest {
  prompt: string
  width: number
  height: number
  transparentBackground: boolean
  seed?: number
}

export interface ImageProvider {
  readonly source: string
  readonly supportsTransparency: boolean
  generateImage(request: ImageRequest, call: ProviderCall): Promise<Generation>
}

export interface TextTo3dRequest {
  description: string
  seed?: number
}

export interface ImageTo3dRequest {
  image: Uint8Array
  /** image/png, image/jpeg or image/webp. */
  mimeType: string
  seed?: number
}

export interface TextTo3dProvider {
  readonly source: string
  generateFromText(request: TextTo3dRequest, call: ProviderCall): Promise<Generation>
}

export interface ImageTo3dProvider {
  readonly source: string
  generateFromImage(request: ImageTo3dRequest, call: ProviderCall): Promise<Generation>
}

/**
 * rate_limited: the provider accepted nothing and asks to come back later.
 * refused: a content policy or safety system said no; retrying the same request will not help.
 * failed: anything else upstream (errors, malformed answers, a request that died mid-way).
 * timeout: the provider did not answer in time.
 */
export type ProviderFailure = 'rate_limited' | 'refused' | 'failed' | 'timeout'

export class ProviderError extends Error {
  readonly kind: ProviderFailure
  readonly provider: string
  readonly retryAfterSeconds: number | undefined

  constructor(kind: ProviderFailure, provider: string, message: string, retryAfterSeconds?: number) {
    super(message)
    this.name = 'ProviderError'
    this.kind = kind
    this.provider = provider
    this.retryAfterSeconds = retryAfterSeconds
  }
}
