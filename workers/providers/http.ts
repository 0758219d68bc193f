// The HTTP calls every adapter shares: a fetch that turns network trouble into ProviderError, JSON
// reading that tolerates a broken body, and Retry-After parsing. Request bodies carry the prompts;
// URLs and log lines never do.
import { ProviderError } from './port.ts'

/** When a 429 names no delay: long enough not to hammer the provider, short enough to matter. */
const defaultRetryAfterSeconds = 5

export async function providerFetch(
  provider: string,
  url: string,
  init: RequestInit,
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal })
  } catch (error) {
    if (signal.aborted)
      throw new ProviderError('timeout', provider, `${provider} did not answer before the job was stopped.`)
    const cause =
      (error as { cause?: { code?: string } }).cause?.code ??
      (error instanceof Error ? error.message : String(error))
    throw new ProviderError('failed', provider, `Could not reach ${provider} (${cause}).`)
  }
}

export async function readJson(provider: string, response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    throw new ProviderError(
      'failed',
      provider,
      `${provider} answered HTTP ${response.status} with a body that is not JSON.`,
    )
  }
}

/** Seconds from `retry-after-ms` (OpenAI), `retry-after` as seconds or as an HTTP date. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number {
  const milliseconds = Number(headers.get('retry-after-ms'))
  if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0)
    return Math.max(1, Math.ceil(milliseconds / 1000))
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return defaultRetryAfterSeconds
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1, Math.ceil(seconds))
  const date = Date.parse(value)
  return Number.isNaN(date) ? defaultRetryAfterSeconds : Math.max(1, Math.ceil((date - now) / 1000))
}

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
