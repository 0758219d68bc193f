import { describe, expect, it } from 'vitest'
import { jobDecider, uploadDecider } from '../../app/deciders.ts'
import type { JobCommand } from '../../domain/job/commands.ts'
import type { JobEvent } from '../../domain/job/events.ts'
import { evolveJob, initialJobState } from '../../domain/job/state.ts'
import { specFor } from '../support/given-when-then.ts'

const t0 = Date.parse('2026-01-01T00:00:00Z')
const at = new Date(t0).toISOString()
const retentionMs = 24 * 3_600_000
const given = specFor(jobDecider)

const created: JobEvent = {
  type: 'JobCreated',
  data: {
    jobId: 'j1',
    accountId: 'a1',
    tool: 'split_3d_model',
    input: { name: 'a.glb', bytes: 10, source: 'upload', blobKey: 'k', sha256: 's' },
    options: {},
    idempotencyKey: null,
    at,
  },
}
const started: JobEvent = { type: 'JobStarted', data: { jobId: 'j1', attempt: 1, worker: 'w', at } }
const succeeded: JobEvent = {
  type: 'JobSucceeded',
  data: {
    jobId: 'j1',
    result: { files: [] },
    computeMs: 5,
    outputsExpireAt: new Date(t0 + retentionMs).toISOString(),
    at,
  },
}

describe('job lifecycle', () => {
  it('queued → running → succeeded, with outputs expiring after the retention', () => {
    given([created])
      .when({ type: 'StartJob', data: { attempt: 1, worker: 'w', now: t0 } })
      .then([started])
    given([created, started])
      .when({ type: 'CompleteJob', data: { result: { files: [] }, computeMs: 5, retentionMs, now: t0 } })
      .then([
        {
          type: 'JobSucceeded',
          data: {
            jobId: 'j1',
            result: { files: [] },
            computeMs: 5,
            outputsExpireAt: '2026-01-02T00:00:00.000Z',
            at,
          },
        },
      ])
  })

  it('a success records the credits of work charged and not done, within what was charged', () => {
    const measured: JobEvent = { type: 'JobMeasured', data: { jobId: 'j1', units: 12, credits: 5, at } }
    const complete = (creditsReturned: number): JobCommand => ({
      type: 'CompleteJob',
      data: { result: { files: [] }, computeMs: 5, retentionMs, creditsReturned, now: t0 },
    })
    given([created, started, measured])
      .when(complete(2))
      .then([{ type: 'JobSucceeded', data: { ...succeeded.data, creditsReturned: 2 } }])
    given([created, started, measured])
      .when(complete(9))
      .then([{ type: 'JobSucceeded', data: { ...succeeded.data, creditsReturned: 5 } }])
    // Nothing to return leaves the event as it always was.
    given([created, started, measured]).when(complete(0)).then([succeeded])
    const returned: JobEvent = { type: 'JobSucceeded', data: { ...succeeded.data, creditsReturned: 2 } }
    const state = [created, started, measured, returned].reduce(evolveJob, initialJobState())
    expect([state.credits, state.creditsReturned]).toEqual([5, 2])
  })

  it('creating twice is a no-op; a redelivered start of the same attempt is a no-op; a higher attempt restarts', () => {
    given([created])
      .when({ type: 'CreateJob', data: { ...created.data, now: t0 } as never })
      .thenNothing()
    given([created, started])
      .when({ type: 'StartJob', data: { attempt: 1, worker: 'w2', now: t0 } })
      .thenNothing()
    given([created, started])
      .when({ type: 'StartJob', data: { attempt: 2, worker: 'w2', now: t0 } })
      .then([{ type: 'JobStarted', data: { jobId: 'j1', attempt: 2, worker: 'w2', at } }])
  })

  it('records the measurement once', () => {
    const measured: JobEvent = { type: 'JobMeasured', data: { jobId: 'j1', units: 12, credits: 2, at } }
    given([created, started])
      .when({ type: 'RecordMeasurement', data: { units: 12, credits: 2, now: t0 } })
      .then([measured])
    given([created, started, measured])
      .when({ type: 'RecordMeasurement', data: { units: 12, credits: 2, now: t0 } })
      .thenNothing()
  })

  it('cancels only a queued job; canceling again is safe; a running job answers job_running', () => {
    given([created])
      .when({ type: 'CancelJob', data: { retentionMs, now: t0 } })
      .then([
        { type: 'JobCanceled', data: { jobId: 'j1', outputsExpireAt: succeeded.data.outputsExpireAt, at } },
      ])
    given([created, { type: 'JobCanceled', data: { jobId: 'j1', outputsExpireAt: at, at } }])
      .when({ type: 'CancelJob', data: { retentionMs, now: t0 } })
      .thenNothing()
    given([created, started])
      .when({ type: 'CancelJob', data: { retentionMs, now: t0 } })
      .thenError('job_running')
    given([created, started, succeeded])
      .when({ type: 'CancelJob', data: { retentionMs, now: t0 } })
      .thenError('job_running')
  })

  it('deletes only a finished job; a deleted job is gone', () => {
    given([created, started, succeeded])
      .when({ type: 'DeleteJob', data: { now: t0 } })
      .then([{ type: 'JobDeleted', data: { jobId: 'j1', at } }])
    given([created, started])
      .when({ type: 'DeleteJob', data: { now: t0 } })
      .thenError('job_running')
    given([created, started, succeeded, { type: 'JobDeleted', data: { jobId: 'j1', at } }])
      .when({ type: 'DeleteJob', data: { now: t0 } })
      .thenError('not_found')
  })

  it('a finished job cannot succeed or fail again', () => {
    given([created, started, succeeded])
      .when({
        type: 'FailJob',
        data: { error: { code: 'timeout', message: 'x', hint: null }, computeMs: 1, retentionMs, now: t0 },
      })
      .thenNothing()
  })

  it('expires once outputs_expire_at passes, not before', () => {
    given([created, started, succeeded])
      .when({ type: 'ExpireJob', data: { now: t0 + retentionMs - 1 } })
      .thenNothing()
    given([created, started, succeeded])
      .when({ type: 'ExpireJob', data: { now: t0 + retentionMs } })
      .then([{ type: 'JobExpired', data: { jobId: 'j1', at: new Date(t0 + retentionMs).toISOString() } }])
  })
})

describe('upload lifecycle', () => {
  const u = specFor(uploadDecider)
  const hourMs = 3_600_000
  const createdUpload = {
    type: 'UploadCreated' as const,
    data: {
      uploadId: 'up_1',
      accountId: 'a1',
      filename: 'a.glb',
      maxBytes: 100,
      urlExpiresAt: new Date(t0 + hourMs).toISOString(),
      at,
    },
  }
  const receive = (now: number, bytes = 10) => ({
    type: 'ReceiveUpload' as const,
    data: { bytes, sha256: 's', blobKey: 'b', retentionMs, now },
  })
  const received = {
    type: 'UploadReceived' as const,
    data: {
      uploadId: 'up_1',
      bytes: 10,
      sha256: 's',
      blobKey: 'b',
      retainUntil: new Date(t0 + retentionMs).toISOString(),
      at,
    },
  }

  it('receives once within the hour, then already_uploaded', () => {
    u([createdUpload]).when(receive(t0)).then([received])
    u([createdUpload, received]).when(receive(t0)).thenError('already_uploaded')
  })

  it('an expired URL or an unknown upload answers invalid_token; too much data too_large', () => {
    u([createdUpload])
      .when(receive(t0 + hourMs))
      .thenError('invalid_token')
    u([]).when(receive(t0)).thenError('invalid_token')
    u([createdUpload]).when(receive(t0, 101)).thenError('too_large')
  })

  it('feeds jobs of its own account until it expires', () => {
    const use = (accountId: string, now: number) => ({
      type: 'UseUpload' as const,
      data: { jobId: 'j1', accountId, now },
    })
    u([createdUpload]).when(use('a1', t0)).thenError('upload_not_found')
    u([createdUpload, received]).when(use('a2', t0)).thenError('upload_not_found')
    u([createdUpload, received])
      .when(use('a1', t0))
      .then([{ type: 'UploadUsed', data: { uploadId: 'up_1', jobId: 'j1', at } }])
    u([createdUpload, received])
      .when(use('a1', t0 + retentionMs))
      .thenError('upload_not_found')
    u([createdUpload, received])
      .when({ type: 'ExpireUpload', data: { now: t0 + retentionMs } })
      .then([
        { type: 'UploadExpired', data: { uploadId: 'up_1', at: new Date(t0 + retentionMs).toISOString() } },
      ])
  })

  it('measures nothing twice', () => {
    expect(
      uploadDecider.decide(
        {
          type: 'CreateUpload',
          data: { uploadId: 'up_1', accountId: 'a1', filename: 'a', maxBytes: 1, urlValidMs: 1, now: t0 },
        },
        uploadDecider.evolve(uploadDecider.initialState(), createdUpload),
      ),
    ).toEqual([])
  })
})

describe('job: stale runs', () => {
  const restarted: JobEvent = { type: 'JobStarted', data: { jobId: 'j1', attempt: 2, worker: 'w2', at } }

  it('a run of an earlier attempt can neither complete nor fail the job', () => {
    given([created, started, restarted])
      .when({
        type: 'CompleteJob',
        data: { result: { files: [] }, computeMs: 1, retentionMs, attempt: 1, now: t0 },
      })
      .thenNothing()
    given([created, started, restarted])
      .when({
        type: 'FailJob',
        data: {
          error: { code: 'timeout', message: 'x', hint: null },
          computeMs: 1,
          retentionMs,
          attempt: 1,
          now: t0,
        },
      })
      .thenNothing()
    given([created, started, restarted])
      .when({
        type: 'CompleteJob',
        data: { result: { files: [] }, computeMs: 1, retentionMs, attempt: 2, now: t0 },
      })
      .then([{ type: 'JobSucceeded', data: { ...succeeded.data, computeMs: 1 } }])
  })
})
