// The authentication cache forgets on withdrawals the moment the owning model writes them, stays
// empty while such a batch is being written, and never keeps what a lookup read before a forget.
import { describe, expect, it } from 'vitest'
import { CredentialCache } from '../../app/identity/credential-cache.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'

const event = (type: string, position = 1): RecordedEvent => ({
  id: `e${position}`,
  streamId: 'account-a',
  revision: position,
  position,
  type,
  data: {},
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
})

function started(): CredentialCache {
  const cache = new CredentialCache()
  cache.start()
  cache.remember('credential:h', { id: 'k' }, cache.epoch)
  return cache
}

describe('credential cache', () => {
  it('remembers nothing while off (a process without the projector duty)', () => {
    const cache = new CredentialCache()
    cache.remember('credential:h', { id: 'k' }, cache.epoch)
    expect(cache.get('credential:h')).toBeUndefined()
    const on = started()
    expect(on.get('credential:h')).toEqual({ id: 'k' })
    on.stop()
    expect(on.get('credential:h')).toBeUndefined()
  })

  it('a revocation written by the keys model empties it, and it stays empty until the write is done', () => {
    const cache = started()
    const batch = [event('JobAdmitted', 1), event('ApiKeyRevoked', 2)]
    cache.observe('writing', 'keys', batch)
    expect(cache.get('credential:h')).toBeUndefined()
    cache.remember('credential:h', { id: 'stale' }, cache.epoch)
    expect(cache.get('credential:h')).toBeUndefined()
    cache.observe('done', 'keys', batch)
    expect(cache.get('credential:h')).toBeUndefined()
    cache.remember('credential:h', { id: 'k2' }, cache.epoch)
    expect(cache.get('credential:h')).toEqual({ id: 'k2' })
  })

  it('a lookup that started before a forget is not remembered after it', () => {
    const cache = started()
    const before = cache.epoch
    cache.observe('writing', 'accounts', [event('AccountDisabled')])
    cache.observe('done', 'accounts', [event('AccountDisabled')])
    cache.remember('account:a', true, before)
    expect(cache.get('account:a')).toBeUndefined()
  })

  it('other events, and withdrawals seen by a model that does not write them, change nothing', () => {
    const cache = started()
    for (const [model, type] of [
      ['keys', 'JobAdmitted'],
      ['jobs', 'ApiKeyRevoked'],
      ['jobs', 'AccountDisabled'],
    ] as const) {
      cache.observe('writing', model, [event(type)])
      expect(cache.get('credential:h')).toEqual({ id: 'k' })
      cache.observe('done', model, [event(type)])
    }
    expect(cache.get('credential:h')).toEqual({ id: 'k' })
  })
})
