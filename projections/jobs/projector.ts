// job-{id} streams → one document per job.
import type { JobEvent } from '../../domain/job/events.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import type { Content, Projector } from '../projector.ts'
import { type JobDoc, jobsCollection, jobsModel } from './job-doc.ts'

const isJobEvent = (event: RecordedEvent): boolean => event.streamId.startsWith('job-')

/** A new job's document, from its JobCreated event (creation answers from it before projection). */
export function createdJob(
  d: Extract<JobEvent, { type: 'JobCreated' }>['data'],
  position: number,
): Content<JobDoc> {
  return {
    accountId: d.accountId,
    seq: position,
    tool: d.tool,
    status: 'queued',
    deleted: false,
    input: d.input,
    options: d.options,
    idempotencyKey: d.idempotencyKey,
    error: null,
    result: null,
    computeMs: null,
    creditsCharged: null,
    progress: null,
    attempt: 0,
    createdAt: d.at,
    startedAt: null,
    finishedAt: null,
    outputsExpireAt: null,
  }
}

function evolve(
  current: Content<JobDoc> | undefined,
  event: JobEvent,
  position: number,
): Content<JobDoc> | undefined {
  if (event.type === 'JobCreated') return current ? undefined : createdJob(event.data, position)
  if (!current) return undefined
  switch (event.type) {
    case 'JobStarted':
      return {
        ...current,
        status: 'running',
        attempt: event.data.attempt,
        startedAt: current.startedAt ?? event.data.at,
      }
    case 'JobMeasured':
      return { ...current, creditsCharged: event.data.credits }
    case 'JobProgressed':
      return { ...current, progress: { fraction: event.data.fraction, message: event.data.message } }
    case 'JobSucceeded': {
      const d = event.data
      return {
        ...current,
        status: 'succeeded',
        result: d.result,
        computeMs: d.computeMs,
        finishedAt: d.at,
        outputsExpireAt: d.outputsExpireAt,
      }
    }
    case 'JobFailed': {
      const d = event.data
      // A failed job costs nothing: whatever was charged went back.
      const creditsCharged = 0
      return {
        ...current,
        status: 'failed',
        error: d.error,
        computeMs: d.computeMs,
        creditsCharged,
        finishedAt: d.at,
        outputsExpireAt: d.outputsExpireAt,
      }
    }
    case 'JobCanceled':
      return {
        ...current,
        status: 'canceled',
        finishedAt: event.data.at,
        outputsExpireAt: event.data.outputsExpireAt,
      }
    case 'JobExpired':
      return { ...current, status: 'expired' }
    case 'JobDeleted':
      return { ...current, deleted: true }
  }
}

export const jobsProjector: Projector = {
  model: jobsModel,
  collections: {
    [jobsCollection]: [
      ['accountId', 'deleted', 'seq'],
      ['accountId', 'deleted', 'tool', 'seq'],
      ['accountId', 'deleted', 'status', 'seq'],
    ],
  },
  touches: (event) =>
    isJobEvent(event)
      ? [
          {
            collection: jobsCollection,
            id: (event.data as { jobId: string }).jobId,
            created: event.type === 'JobCreated',
          },
        ]
      : [],
  apply(event, workspace) {
    if (!isJobEvent(event)) return
    const jobEvent = { type: event.type, data: event.data } as JobEvent
    workspace.update<JobDoc>(jobsCollection, jobEvent.data.jobId, event, (current) =>
      evolve(current, jobEvent, event.position),
    )
  },
}
