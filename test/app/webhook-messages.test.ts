// job.* webhook messages say what the job cost: its charge, less what went back for work charged but
// not done, and nothing for a job that did not succeed.
import { describe, expect, it } from 'vitest'
import { messageFor } from '../../app/webhooks/messages.ts'
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.ts'

const at = '2026-01-01T00:00:00.000Z'
const recorded = (revision: number, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'job-j1',
  revision,
  position: revision,
  type,
  data: { jobId: 'j1', at, ...data },
  metadata: {},
  createdAt: at,
})

async function chargedIn(final: RecordedEvent): Promise<unknown> {
  const history = [
    recorded(0, 'JobCreated', { accountId: 'a1', tool: 'extract_pdf' }),
    recorded(1, 'JobMeasured', { units: 3, credits: 3 }),
    final,
  ]
  const store = { readStream: async () => history } as unknown as EventStore
  const message = await messageFor(store, async () => null, final)
  return (JSON.parse(message!.payload) as { data: { job: { credits_charged: number } } }).data.job
    .credits_charged
}

describe('job webhook messages', () => {
  it('charge less what went back; nothing for a failed job', async () => {
    const result = { files: [] }
    const done = { result, computeMs: 1, outputsExpireAt: at }
    expect(await chargedIn(recorded(2, 'JobSucceeded', done))).toBe(3)
    expect(await chargedIn(recorded(2, 'JobSucceeded', { ...done, creditsReturned: 1 }))).toBe(2)
    const error = { code: 'invalid_pdf', message: 'x', hint: null }
    expect(await chargedIn(recorded(2, 'JobFailed', { error, computeMs: 1, outputsExpireAt: at }))).toBe(0)
  })
})
