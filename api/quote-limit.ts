// Quotes measure inputs for free, so they get a budget of their own (QUOTES_PER_MINUTE, QUOTE_BURST),
// well under the request rate: one bucket per credential, shared by REST and MCP.
import type { Services } from '../app/services.ts'
import { RateLimiter } from './rate-limit.ts'

const limiters = new WeakMap<Services, RateLimiter>()

/** Takes one quote from the credential's budget, or throws rate_limited. */
export function takeQuote(services: Services, credentialId: string): void {
  let limiter = limiters.get(services)
  if (!limiter) {
    limiter = new RateLimiter({ name: 'quote', ...services.ctx.config.quoteRateLimit })
    limiters.set(services, limiter)
  }
  limiter.take(`quote:${credentialId}`, services.ctx.now())
}
