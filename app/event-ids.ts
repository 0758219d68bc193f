// Deterministic event ids: a UUID (version 8, name-based) from the stream, the type and the data.
// The same decision appended twice (a retry after a lost acknowledgement) gets the same ids, so the
// store answers the second append as a no-op instead of writing the events again.
//
// The first 48 bits are the event's own time (its `at`, in milliseconds; 0 for an event without
// one), the rest the digest. Events decided together sort together, so the event store's unique
// index on ids grows at one end: a group commit of many creations dirties one page of it rather
// than one page per event, which is most of what such a commit writes and syncs.
import { hash } from 'node:crypto'

export function deterministicEventId(streamId: string, type: string, data: unknown): string {
  // One call over the joined text: the same digest as feeding the parts in turn, without a Hash object.
  const digest = hash('sha256', `${streamId}\0${type}\0${JSON.stringify(data)}`, 'buffer')
  digest.writeUIntBE(eventTime(data), 0, 6)
  digest[6] = (digest[6]! & 0x0f) | 0x80
  digest[8] = (digest[8]! & 0x3f) | 0x80
  const hex = digest.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/** Milliseconds since 1970 of the event's `at`, when it has one that fits 48 bits; otherwise 0. */
function eventTime(data: unknown): number {
  const at = typeof data === 'object' && data !== null ? (data as { at?: unknown }).at : undefined
  const ms = typeof at === 'string' ? Date.parse(at) : Number.NaN
  return Number.isFinite(ms) && ms >= 0 && ms < 2 ** 48 ? ms : 0
}
