// job-{id} streams → one document per job. A job reads final only once its account is settled
// (the slot released, a failure refunded: the account stream's JobReleased), so a client that sees
// its job final also sees the refund in Billing and can start its next job within its active-jobs
// limit. Until then the document keeps showing the job running (or queued) and holds the final
// state beside it. The jobs model never gets ahead of the accounts model (`follows`), so the
// refund is in Billing by the time the job reads failed.
import { jobSettledBy } from '../../domain/account/settled-job.ts'
import { finalStatuses, type JobEvent } from '../../domain/job/events.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import { accountsModel } from '../accounts/account-docs.ts'
import type { Content, Projector } from '../projector.ts'
import { type JobDoc, type JobState, jobsCollection, jobsModel } from './job-doc.ts'

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
    settled: false,
    awaitingSettlement: null,
  }
}

/** The job's own state after one of its events. */
function evolve(current: JobState | undefined, event: JobEvent, position: number): JobState | undefined {
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
        // Work charged but not done went back (the charge is in JobMeasured).
        creditsCharged:
          current.creditsCharged === null ? null : current.creditsCharged - (d.creditsReturned ?? 0),
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

/** Without the held final state (documents written before it existed may lack the field). */
function ownState(doc: Content<JobDoc>): JobState {
  const { awaitingSettlement: _, ...state } = doc
  return state
}

/** The document after a job event: a final state is held while the account is not settled. */
function applyJobEvent(
  current: Content<JobDoc> | undefined,
  event: JobEvent,
  position: number,
): Content<JobDoc> | undefined {
  const held = current?.awaitingSettlement
  if (current && held) {
    const next = evolve(held, event, position)
    return next && { ...current, deleted: next.deleted, awaitingSettlement: next }
  }
  const next = evolve(current && ownState(current), event, position)
  if (!next) return undefined
  const finishing =
    current !== undefined && !finalStatuses.has(current.status) && finalStatuses.has(next.status)
  if (finishing && !current.settled) return { ...current, awaitingSettlement: next }
  return { ...next, awaitingSettlement: null }
}

/** The document once its account settled the job: the held final state, if any, is shown. */
function settle(current: Content<JobDoc> | undefined): Content<JobDoc> | undefined {
  if (!current || current.settled) return undefined
  return { ...(current.awaitingSettlement ?? ownState(current)), settled: true, awaitingSettlement: null }
}

export const jobsProjector: Projector = {
  model: jobsModel,
  follows: accountsModel,
  collections: {
    [jobsCollection]: [
      ['accountId', 'deleted', 'seq'],
      ['accountId', 'deleted', 'tool', 'seq'],
      ['accountId', 'deleted', 'status', 'seq'],
    ],
  },
  touches(event) {
    if (isJobEvent(event))
      return [
        {
          collection: jobsCollection,
          id: (event.data as { jobId: string }).jobId,
          created: event.type === 'JobCreated',
        },
      ]
    const settled = jobSettledBy(event)
    return settled === null ? [] : [{ collection: jobsCollection, id: settled }]
  },
  apply(event, workspace) {
    if (isJobEvent(event)) {
      const jobEvent = { type: event.type, data: event.data } as JobEvent
      workspace.update<JobDoc>(jobsCollection, jobEvent.data.jobId, event, (current) =>
        applyJobEvent(current, jobEvent, event.position),
      )
      return
    }
    const settled = jobSettledBy(event)
    if (settled !== null) workspace.update<JobDoc>(jobsCollection, settled, event, settle)
  },
}
