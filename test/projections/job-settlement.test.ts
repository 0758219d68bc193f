// The jobs projector's hold: a finished job's final state shows once its account settled the job
// (JobReleased, or a charge declined because the admission was already released), whatever comes
// in between; and after the settlement grace it shows anyway.
import { describe, expect, it } from 'vitest'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import type { JobDoc } from '../../projections/jobs/job-doc.ts'
import { jobsProjector } from '../../projections/jobs/projector.ts'
import { renderJob, settlementGraceMs } from '../../projections/jobs/render.ts'
import { Workspace } from '../../projections/workspace.ts'

const jobId = 'job_settle'
const accountId = 'acc_settle'
const at = '2026-11-27T09:00:00.000Z'

function project(events: { stream: 'job' | 'account'; type: string; data: Record<string, unknown> }[]) {
  const workspace = new Workspace()
  events.forEach(({ stream, type, data }, i) => {
    const event: RecordedEvent = {
      id: `e${i}`,
      streamId: stream === 'job' ? `job-${jobId}` : `account-${accountId}`,
      revision: i,
      position: i + 1,
      type,
      data: { jobId, accountId, ...data },
      metadata: {},
      createdAt: at,
    }
    jobsProjector.apply(event, workspace)
  })
  return workspace.get<JobDoc>('jobs', jobId)!
}

const created = {
  stream: 'job',
  type: 'JobCreated',
  data: {
    tool: 'get_random_numbers',
    input: { name: '', bytes: 0, source: 'none', blobKey: null },
    options: {},
    idempotencyKey: null,
    at,
  },
} as const
const started = { stream: 'job', type: 'JobStarted', data: { attempt: 1, worker: 'w', at } } as const
const failed = {
  stream: 'job',
  type: 'JobFailed',
  data: { error: { code: 'internal', message: 'boom', hint: null }, computeMs: 5, outputsExpireAt: at, at },
} as const
const released = { stream: 'account', type: 'JobReleased', data: { outcome: 'failed', at } } as const
const render = (doc: JobDoc, now: number) => renderJob(doc, { now: new Date(now), signFileUrl: () => '' })

describe('a finished job before and after its settlement', () => {
  it('shows running, with the failure held, until the release; then failed', () => {
    const held = project([created, started, failed])
    expect(held).toMatchObject({ status: 'running', error: null, settled: false })
    expect(held.awaitingSettlement).toMatchObject({ status: 'failed', creditsCharged: 0 })
    const settled = project([created, started, failed, released])
    expect(settled).toMatchObject({
      status: 'failed',
      creditsCharged: 0,
      settled: true,
      awaitingSettlement: null,
    })
    expect(settled.error).toMatchObject({ code: 'internal' })
  })

  it('shows the end at once when the settlement came first (an admission released before its job ran)', () => {
    const declined = {
      stream: 'account',
      type: 'JobChargeDeclined',
      data: { tool: 'get_random_numbers', price: 1, available: 0, reason: 'admission_released', at },
    } as const
    expect(project([created, started, declined, failed])).toMatchObject({ status: 'failed', settled: true })
    // A decline for want of credits is no settlement: the release still follows the failure.
    const poor = { ...declined, data: { ...declined.data, reason: 'insufficient_credits' } }
    expect(project([created, started, poor, failed])).toMatchObject({ status: 'running', settled: false })
  })

  it('keeps later events on the held state: a delete hides the job at once', () => {
    const deleted = { stream: 'job', type: 'JobDeleted', data: { at } } as const
    const doc = project([created, started, failed, deleted])
    expect(doc).toMatchObject({ deleted: true, status: 'running' })
    expect(project([created, started, failed, deleted, released])).toMatchObject({
      deleted: true,
      status: 'failed',
    })
  })

  it('renders the held end once the settlement grace has passed, and not before', () => {
    const held = project([created, started, failed])
    const finished = Date.parse(at)
    expect(render(held, finished + 1000).status).toBe('running')
    expect(render(held, finished + settlementGraceMs + 1).status).toBe('failed')
  })
})
