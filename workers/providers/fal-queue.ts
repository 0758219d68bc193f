// fal's queue API: POST https://queue.fal.run/{model} answers a request_id with status and response
// URLs; GET …/requests/{id}/status says IN_QUEUE (with queue_position), IN_PROGRESS or COMPLETED;
// GET …/requests/{id} returns the model's output, or the error the run ended with. Requests
// authenticate with `Authorization: Key <FAL_KEY>`.
import { providerFetch, readJson, retryAfterSeconds, sleep } from './http.ts'
import { type ProviderCall, ProviderError } from './port.ts'

export interface FalConfig {
  key: string
  /** https://queue.fal.run, or a local server in tests. */
  baseUrl: string
  pollIntervalMs: number
}

interface Submitted {
  request_id?: string
  status_url?: string
  response_url?: string
}

interface QueueStatus {
  status?: string
  queue_position?: number
  error?: string | null
}

interface FalErrorBody {
  detail?: string | { type?: string; msg?: string }[]
}

const provider = 'fal'
/** Consecutive failed status polls tolerated before the request counts as lost. */
const pollErrorLimit = 3

export async function runFalQueue(
  config: FalConfig,
  model: string,
  input: Record<string, unknown>,
  call: ProviderCall,
): Promise<unknown> {
  const headers = { authorization: `Key ${config.key}`, 'content-type': 'application/json' }
  const submitted = await providerFetch(
    provider,
    `${config.baseUrl}/${model}`,
    { method: 'POST', headers, body: JSON.stringify(input) },
    call.signal,
  )
  const body = await readJson(provider, submitted)
  if (!submitted.ok) throw failureOf(submitted, body as FalErrorBody, 'submit')
  const requestId = (body as Submitted).request_id
  if (!requestId)
    throw new ProviderError('failed', provider, 'fal accepted the request without a request_id.')
  const urls = requestUrls(config, model, requestId, body as Submitted)

  await waitUntilCompleted(config, urls.status, headers, call)
  const result = await providerFetch(provider, urls.response, { headers }, call.signal)
  const output = await readJson(provider, result)
  if (!result.ok) throw failureOf(result, output as FalErrorBody, 'result')
  return output
}

async function waitUntilCompleted(
  config: FalConfig,
  statusUrl: string,
  headers: Record<string, string>,
  call: ProviderCall,
) {
  let pollErrors = 0
  for (;;) {
    const response = await providerFetch(provider, statusUrl, { headers }, call.signal)
    if (response.status === 429) {
      // The request is already in fal's queue: only our polling is limited, so wait and look again.
      await response.body?.cancel()
      await sleep(retryAfterSeconds(response.headers) * 1000, call.signal)
      continue
    }
    if (!response.ok) {
      await response.body?.cancel()
      if (++pollErrors >= pollErrorLimit)
        throw new ProviderError(
          'failed',
          provider,
          `fal's status endpoint answered HTTP ${response.status} ${pollErrors} times in a row.`,
        )
      await sleep(config.pollIntervalMs, call.signal)
      continue
    }
    pollErrors = 0
    const status = (await readJson(provider, response)) as QueueStatus
    if (status.error)
      throw new ProviderError(
        'failed',
        provider,
        `The request failed at fal while it ran (${status.error.slice(0, 200)}).`,
      )
    switch (status.status) {
      case 'COMPLETED':
        return
      case 'IN_QUEUE':
        call.onStatus(
          status.queue_position === undefined
            ? 'waiting in the provider queue'
            : `waiting in the provider queue (position ${status.queue_position})`,
        )
        break
      case 'IN_PROGRESS':
        call.onStatus('generating')
        break
      default:
        throw new ProviderError(
          'failed',
          provider,
          `The request ended at fal with status ${status.status ?? 'unknown'}.`,
        )
    }
    await sleep(config.pollIntervalMs, call.signal)
  }
}

/**
 * fal's status and result paths use the app id without a subpath (fal-ai/flux/schnell → fal-ai/flux),
 * so the URLs fal returns are preferred; they must stay on the configured origin, because our key
 * goes with every call.
 */
function requestUrls(config: FalConfig, model: string, requestId: string, submitted: Submitted) {
  const appBase = `${config.baseUrl}/${model.split('/').slice(0, 2).join('/')}/requests/${encodeURIComponent(requestId)}`
  const origin = new URL(config.baseUrl).origin
  const sameOrigin = (url: string | undefined) =>
    url && URL.canParse(url) && new URL(url).origin === origin ? url : null
  return {
    status: sameOrigin(submitted.status_url) ?? `${appBase}/status`,
    response: sameOrigin(submitted.response_url) ?? appBase,
  }
}

function failureOf(response: Response, body: FalErrorBody, step: 'submit' | 'result'): ProviderError {
  if (response.status === 429)
    return new ProviderError(
      'rate_limited',
      provider,
      'fal is limiting requests.',
      retryAfterSeconds(response.headers),
    )
  const detail = Array.isArray(body.detail) ? body.detail : []
  if (detail.some((d) => d.type?.includes('content_policy')))
    return new ProviderError(
      'refused',
      provider,
      "fal's safety checker refused the request (content_policy_violation).",
    )
  if (response.status === 401 || response.status === 403)
    return new ProviderError(
      'failed',
      provider,
      `fal refused this service's credentials (HTTP ${response.status}).`,
    )
  if (response.status === 504)
    return new ProviderError('timeout', provider, 'fal timed out running the request.')
  const what =
    step === 'submit' ? 'refused to queue the request' : 'reported that the request failed while it ran'
  const reason = typeof body.detail === 'string' ? `: ${body.detail.slice(0, 200)}` : ''
  return new ProviderError('failed', provider, `fal ${what} (HTTP ${response.status})${reason}.`)
}
