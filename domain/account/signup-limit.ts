// Sign-ups per client address: each new account counts against the address it came from, and an
// address that opened the configured number of accounts within the window gets 429 until the oldest
// of them leaves it. One stream per address (named by a digest, so addresses are not stored in clear);
// the expected revision of the append keeps the count exact across processes.
import type { Command } from '../command.ts'
import { DomainError } from '../errors.ts'

export type SignUpLimitEvent = { type: 'SignUpCounted'; data: { at: string } }

export type SignUpLimitCommand = Command<'CountSignUp', { limit: number; windowMs: number }>

export interface SignUpLimitState {
  /** Times (epoch ms) of the address's sign-ups, oldest first. */
  recent: number[]
}

export const initialSignUpLimitState = (): SignUpLimitState => ({ recent: [] })

export const evolveSignUpLimit = (state: SignUpLimitState, event: SignUpLimitEvent): SignUpLimitState => ({
  recent: [...state.recent, Date.parse(event.data.at)],
})

export function decideSignUpLimit(command: SignUpLimitCommand, state: SignUpLimitState): SignUpLimitEvent[] {
  const { limit, windowMs, now } = command.data
  const inWindow = state.recent.filter((at) => at > now - windowMs)
  if (inWindow.length >= limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil((inWindow[0]! + windowMs - now) / 1000))
    throw new DomainError(
      'rate_limited',
      `Too many new accounts from this address: at most ${limit} per ${Math.round(windowMs / 60_000)} minutes. Try again in ${Math.ceil(retryAfterSeconds / 60)} minutes, or sign in to an account you already have.`,
      { retryAfterSeconds, hint: 'Wait for Retry-After.' },
    )
  }
  return [{ type: 'SignUpCounted', data: { at: new Date(now).toISOString() } }]
}

export const signUpLimitStream = (addressDigest: string) => `signup-address-${addressDigest}`
