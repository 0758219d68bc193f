import type { JobError } from '../errors.ts'
import { finalStatuses, type JobEvent, type JobInput, type JobResult, type JobStatus } from './events.ts'

export interface JobState {
  exists: boolean
  jobId: string
  accountId: string
  tool: string
  status: JobStatus
  deleted: boolean
  input: JobInput | null
  options: Record<string, unknown>
  idempotencyKey: string | null
  attempt: number
  credits: number | null
  /** Credits of the charge that went back when the job succeeded (work charged but not done). */
  creditsReturned: number
  result: JobResult | null
  error: JobError | null
  outputsExpireAt: number | null
}

export const initialJobState = (): JobState => ({
  exists: false,
  jobId: '',
  accountId: '',
  tool: '',
  status: 'queued',
  deleted: false,
  input: null,
  options: {},
  idempotencyKey: null,
  attempt: 0,
  credits: null,
  creditsReturned: 0,
  result: null,
  error: null,
  outputsExpireAt: null,
})

export function evolveJob(state: JobState, event: JobEvent): JobState {
  switch (event.type) {
    case 'JobCreated': {
      const d = event.data
      return {
        ...state,
        exists: true,
        jobId: d.jobId,
        accountId: d.accountId,
        tool: d.tool,
        input: d.input,
        options: d.options,
        idempotencyKey: d.idempotencyKey,
        status: 'queued',
      }
    }
    case 'JobStarted':
      return { ...state, status: 'running', attempt: event.data.attempt }
    case 'JobMeasured':
      return { ...state, credits: event.data.credits }
    case 'JobProgressed':
      return state
    case 'JobSucceeded':
      return {
        ...state,
        status: 'succeeded',
        result: event.data.result,
        creditsReturned: event.data.creditsReturned ?? 0,
        outputsExpireAt: Date.parse(event.data.outputsExpireAt),
      }
    case 'JobFailed':
      return {
        ...state,
        status: 'failed',
        error: event.data.error,
        outputsExpireAt: Date.parse(event.data.outputsExpireAt),
      }
    case 'JobCanceled':
      return { ...state, status: 'canceled', outputsExpireAt: Date.parse(event.data.outputsExpireAt) }
    case 'JobExpired':
      return { ...state, status: 'expired' }
    case 'JobDeleted':
      return { ...state, deleted: true }
  }
}

export const isFinished = (state: JobState) => finalStatuses.has(state.status)
