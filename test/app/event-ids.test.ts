import { describe, expect, it } from 'vitest'
import { deterministicEventId } from '../../app/event-ids.ts'

const uuidV8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('deterministic event ids', () => {
  const data = (at: unknown) => ({ jobId: 'j_1', accountId: 'acct_1', at })

  it('are the same for the same stream, type and data, and differ when any of them does', () => {
    const id = deterministicEventId('job-j_1', 'JobCreated', data('2026-11-27T18:00:00.000Z'))
    expect(id).toMatch(uuidV8)
    expect(deterministicEventId('job-j_1', 'JobCreated', data('2026-11-27T18:00:00.000Z'))).toBe(id)
    for (const other of [
      deterministicEventId('job-j_2', 'JobCreated', data('2026-11-27T18:00:00.000Z')),
      deterministicEventId('job-j_1', 'JobStarted', data('2026-11-27T18:00:00.000Z')),
      deterministicEventId('job-j_1', 'JobCreated', { ...data('2026-11-27T18:00:00.000Z'), tool: 'x' }),
    ])
      expect(other).not.toBe(id)
  })

  it('sort by the time of the event they name, whatever its stream and type', () => {
    const times = [
      '1970-01-01T00:00:00.001Z',
      '2026-11-27T18:00:00.000Z',
      '2026-11-27T18:00:00.001Z',
      '2300-01-01T00:00:00Z',
    ]
    const ids = times.map((at, i) => deterministicEventId(`stream-${9 - i}`, i % 2 ? 'A' : 'B', data(at)))
    for (const id of ids) expect(id).toMatch(uuidV8)
    expect([...ids].sort()).toEqual(ids)
    const ms = Date.parse(times[1]!)
    expect(ids[1]!.replace(/-/g, '').slice(0, 12)).toBe(ms.toString(16).padStart(12, '0'))
  })

  it('stay well-formed UUIDs for events without a usable time', () => {
    const unusable = [undefined, null, 'not a date', 42, '-000001-01-01T00:00:00Z', '+275760-09-13T00:00:00Z']
    const ids = [
      ...unusable.map((at) => deterministicEventId('s', 'T', data(at))),
      deterministicEventId('s', 'T', 'plain'),
    ]
    for (const id of ids) {
      expect(id).toMatch(uuidV8)
      expect(id.startsWith('00000000-0000-8')).toBe(true)
    }
    expect(new Set(ids).size).toBe(ids.length)
  })
})
