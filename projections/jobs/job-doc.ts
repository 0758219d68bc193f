// The jobs model's document: the spec's Job fields plus what the API needs internally.
import type { JobError } from '../../domain/errors.ts'
import type { JobInput, JobResult, JobStatus } from '../../domain/job/events.ts'
import type { Doc } from '../read-store.ts'

export const jobsModel = 'jobs'
export const jobsCollection = 'jobs'

export interface JobDoc extends Doc {
  accountId: string
  /** The JobCreated event's global position: newest-first order and the `before` cursor. */
  seq: number
  tool: string
  status: JobStatus
  deleted: boolean
  input: JobInput
  options: Record<string, unknown>
  idempotencyKey: string | null
  error: JobError | null
  result: JobResult | null
  computeMs: number | null
  creditsCharged: number | null
  progress: { fraction: number; message: string | null } | null
  attempt: number
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  outputsExpireAt: string | null
  /** The account has settled the job: its slot released and, for a failure, its charge refunded. */
  settled: boolean
  /**
   * The job's final state while its account is not settled yet; the document shows it once it is
   * (projector.ts). Absent on documents written before this field existed.
   */
  awaitingSettlement?: JobState | null
}

/** What a job document holds besides its bookkeeping and the held final state. */
export type JobState = Omit<JobDoc, 'id' | 'position' | 'awaitingSettlement'>
