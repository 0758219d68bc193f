// A job's life: created (queued) → started (running) → measured and charged → progress →
// succeeded | failed; queued → canceled; finished → expired (outputs gone) → deleted.
import type { JobError } from '../errors.ts'

export const jobStatuses = ['queued', 'running', 'succeeded', 'failed', 'canceled', 'expired'] as const
export type JobStatus = (typeof jobStatuses)[number]

export interface JobInput {
  name: string
  bytes: number
  /** An earlier job's output (job_file) arrives as an upload would: the spec knows no other source. */
  source: 'upload' | 'url' | 'body' | 'none'
  /** Where the worker finds the input in the blob store; null for parameter tools. */
  blobKey: string | null
  sha256: string | null
}

export interface JobFile {
  name: string
  bytes: number
  sha256: string
}

export interface JobResult {
  [field: string]: unknown
  files: JobFile[]
}

export type JobEvent =
  | {
      type: 'JobCreated'
      data: {
        jobId: string
        accountId: string
        tool: string
        input: JobInput
        options: Record<string, unknown>
        idempotencyKey: string | null
        at: string
      }
    }
  | { type: 'JobStarted'; data: { jobId: string; attempt: number; worker: string; at: string } }
  | { type: 'JobMeasured'; data: { jobId: string; units: number; credits: number; at: string } }
  | { type: 'JobProgressed'; data: { jobId: string; fraction: number; message: string | null; at: string } }
  | {
      type: 'JobSucceeded'
      data: {
        jobId: string
        result: JobResult
        computeMs: number
        outputsExpireAt: string
        at: string
        /** Credits of the charge that go back for work the run could not do (absent: none). */
        creditsReturned?: number
      }
    }
  | {
      type: 'JobFailed'
      data: { jobId: string; error: JobError; computeMs: number | null; outputsExpireAt: string; at: string }
    }
  | { type: 'JobCanceled'; data: { jobId: string; outputsExpireAt: string; at: string } }
  | { type: 'JobExpired'; data: { jobId: string; at: string } }
  | { type: 'JobDeleted'; data: { jobId: string; at: string } }

export const jobStream = (jobId: string) => `job-${jobId}`

/** The statuses a job never leaves (but for expiry of its outputs): a client stops polling there. */
export const finalStatuses: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'canceled', 'expired'])
