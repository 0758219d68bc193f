// Deterministic event ids: a UUID (version 8, name-based) from the stream, the type and the data.
// The same decision appended twice (a retry after a lost acknowledgement) gets the same ids, so the
// store answers the second append as a no-op instead of writing the events again.
import { hash } from 'node:crypto'

export function deterministicEventId(streamId: string, type: string, data: unknown): string {
  // One call over the joined text: the same digest as feeding the parts in turn, without a Hash object.
  const digest = hash('sha256', `${streamId}\0${type}\0${JSON.stringify(data)}`, 'buffer')
  digest[6] = (digest[6]! & 0x0f) | 0x80
  digest[8] = (digest[8]! & 0x3f) | 0x80
  const hex = digest.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
