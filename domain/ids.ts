// Identifiers. Randomness is injected (`RandomSource`), so the domain stays pure and tests are repeatable.

export type RandomSource = (size: number) => Uint8Array

const base36 = '0123456789abcdefghijklmnopqrstuvwxyz'
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Unbiased characters from an alphabet: bytes at or above the largest multiple of its length are rejected. */
export function randomString(random: RandomSource, alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length)
  let out = ''
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

const timeDigits = 9
const timePrefix = (ms: number) =>
  Math.max(0, Math.floor(ms)).toString(36).padStart(timeDigits, '0').slice(-timeDigits)

export const jobIdPattern = /^j_[0-9a-z]{26}$/
export const uploadIdPattern = /^up_[0-9a-z]{26}$/

/**
 * A job id: its creation time (milliseconds, 9 base36 digits, good until the year 5138) then 17
 * random characters (88 bits). Ids made later sort later, so job ids list in creation order and the
 * stores' indexes over them grow at one end: a commit of many new jobs dirties one index page, not
 * one per job.
 */
export const newJobId = (random: RandomSource, now: number) =>
  `j_${timePrefix(now)}${randomString(random, base36, 26 - timeDigits)}`
export const newUploadId = (random: RandomSource) => `up_${randomString(random, base36, 26)}`
export const newAccountId = (random: RandomSource) => `acct_${randomString(random, base36, 20)}`
export const newKeyId = (random: RandomSource) => `key_${randomString(random, base36, 20)}`
export const newLotId = (random: RandomSource) => `lot_${randomString(random, base36, 20)}`

/** API keys and console tokens: a fixed prefix, then 43 base62 characters (about 256 bits). */
export const apiKeyPrefix = 'kiln_sk_'
export const consoleTokenPrefix = 'kiln_cs_'
const secretLength = 43
/** How many leading characters of a secret are kept (in clear) to let people recognise a key. */
export const visiblePrefixLength = apiKeyPrefix.length + 6

export function newSecret(random: RandomSource, prefix: string): string {
  return prefix + randomString(random, base62, secretLength)
}

export const secretShape = /^kiln_(sk|cs)_[0-9A-Za-z]{43}$/
