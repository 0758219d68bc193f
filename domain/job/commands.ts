import type { Command } from '../command.ts'
import type { JobError } from '../errors.ts'
import type { JobInput, JobResult } from './events.ts'

export type JobCommand =
  | Command<
      'CreateJob',
      {
        jobId: string
        accountId: string
        tool: string
        input: JobInput
        options: Record<string, unknown>
        idempotencyKey: string | null
      }
    >
  | Command<'StartJob', { attempt: number; worker: string }>
  | Command<'RecordMeasurement', { units: number; credits: number }>
  | Command<'ReportProgress', { fraction: number; message: string | null }>
  /** `attempt`: only that run may finish the job (a stale run of an earlier attempt changes nothing). */
  /** `creditsReturned`: credits of the charge for work the run could not do (see ToolOutput). */
  | Command<
      'CompleteJob',
      {
        result: JobResult
        computeMs: number
        retentionMs: number
        creditsReturned?: number
        attempt?: number
      }
    >
  | Command<'FailJob', { error: JobError; computeMs: number | null; retentionMs: number; attempt?: number }>
  | Command<'CancelJob', { retentionMs: number }>
  | Command<'ExpireJob', Record<never, never>>
  | Command<'DeleteJob', Record<never, never>>
