// Runs one provider call for a tool: progress lines go to the job, a rate limit on a request the
// provider has not accepted is waited out (the provider spent nothing, and the job keeps its place)
// up to a budget, and every ProviderError becomes the job error a client can act on.
import { throttledJobError } from '../../domain/capacity/provider-throttle.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolContext } from '../../domain/ports/tool-runner.ts'
import { sleep } from '../providers/http.ts'
import { type ProviderCall, ProviderError } from '../providers/port.ts'

export interface CallOptions {
  /** Longest total wait for rate limits before the job gives up (GENERATION_RATE_LIMIT_WAIT_S). */
  rateLimitBudgetMs: number
  /** Progress fraction reported while the provider works. */
  fraction: number
}

export async function callProvider<T>(
  context: ToolContext,
  options: CallOptions,
  run: (call: ProviderCall) => Promise<T>,
): Promise<T> {
  const call: ProviderCall = {
    signal: context.signal,
    onStatus: (message) => context.progress(options.fraction, message),
  }
  let waitedMs = 0
  for (;;) {
    try {
      return await run(call)
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error
      const seconds = error.retryAfterSeconds ?? 0
      if (error.kind === 'rate_limited' && waitedMs + seconds * 1000 <= options.rateLimitBudgetMs) {
        context.progress(options.fraction, `the provider is limiting requests; trying again in ${seconds} s`)
        await sleep(seconds * 1000, context.signal)
        waitedMs += seconds * 1000
        continue
      }
      throw asJobError(error)
    }
  }
}

function asJobError(error: ProviderError): DomainError {
  switch (error.kind) {
    case 'rate_limited': {
      const { message, hint } = throttledJobError(error.provider, error.retryAfterSeconds ?? 0)
      return new DomainError('rate_limited', message, { hint })
    }
    case 'refused':
      return new DomainError('upstream_refused', `${error.message} The charge was returned.`, {
        hint: 'Rephrase the request; refused requests cost nothing.',
      })
    case 'timeout':
      return new DomainError('timeout', `${error.message} The charge was returned.`, {
        hint: 'Retry later with a new idempotency key.',
      })
    case 'failed':
      return new DomainError('upstream_failed', `${error.message} The charge was returned.`, {
        hint: 'Retry later with a new idempotency key; failed jobs cost nothing.',
      })
  }
}
