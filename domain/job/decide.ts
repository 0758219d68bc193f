// The job's state machine. Repeats of a transition that already happened are no-ops, so a
// redelivered message or a retried request changes nothing; anything else out of order is refused.
import { DomainError } from '../errors.ts'
import type { JobCommand } from './commands.ts'
import type { JobEvent } from './events.ts'
import { isFinished, type JobState } from './state.ts'

const iso = (ms: number) => new Date(ms).toISOString()

function requireJob(state: JobState): void {
  if (!state.exists || state.deleted) throw new DomainError('not_found', 'No such job.')
}

/** A run of an earlier attempt, overtaken by a restart: its outcome no longer counts. */
const isStale = (state: JobState, attempt: number | undefined) =>
  attempt !== undefined && attempt !== state.attempt

export function decideJob(command: JobCommand, state: JobState): JobEvent[] {
  const { now } = command.data
  const at = iso(now)
  const jobId = state.jobId
  switch (command.type) {
    case 'CreateJob': {
      if (state.exists) return []
      const { jobId, accountId, tool, input, options, idempotencyKey } = command.data
      return [{ type: 'JobCreated', data: { jobId, accountId, tool, input, options, idempotencyKey, at } }]
    }
    case 'StartJob': {
      requireJob(state)
      if (isFinished(state)) return []
      // A redelivery after a worker died restarts the job under a higher attempt number.
      if (state.status === 'running' && command.data.attempt <= state.attempt) return []
      return [
        {
          type: 'JobStarted',
          data: { jobId, attempt: command.data.attempt, worker: command.data.worker, at },
        },
      ]
    }
    case 'RecordMeasurement': {
      requireJob(state)
      if (state.status !== 'running' || state.credits !== null) return []
      return [
        {
          type: 'JobMeasured',
          data: { jobId, units: command.data.units, credits: command.data.credits, at },
        },
      ]
    }
    case 'ReportProgress': {
      requireJob(state)
      if (state.status !== 'running') return []
      const fraction = Math.min(1, Math.max(0, command.data.fraction))
      return [{ type: 'JobProgressed', data: { jobId, fraction, message: command.data.message, at } }]
    }
    case 'CompleteJob': {
      requireJob(state)
      if (isFinished(state) || isStale(state, command.data.attempt)) return []
      if (state.status !== 'running') throw new DomainError('job_running', 'Only a running job can succeed.')
      const { result, computeMs, retentionMs } = command.data
      const returned = Math.min(command.data.creditsReturned ?? 0, state.credits ?? 0)
      return [
        {
          type: 'JobSucceeded',
          data: {
            jobId,
            result,
            computeMs,
            outputsExpireAt: iso(now + retentionMs),
            at,
            ...(returned > 0 ? { creditsReturned: returned } : {}),
          },
        },
      ]
    }
    case 'FailJob': {
      requireJob(state)
      if (isFinished(state) || isStale(state, command.data.attempt)) return []
      const { error, computeMs, retentionMs } = command.data
      return [
        { type: 'JobFailed', data: { jobId, error, computeMs, outputsExpireAt: iso(now + retentionMs), at } },
      ]
    }
    case 'CancelJob': {
      requireJob(state)
      if (state.status === 'canceled') return []
      if (state.status !== 'queued') {
        throw new DomainError('job_running', `The job is ${state.status}; only a queued job can be canceled.`)
      }
      return [
        { type: 'JobCanceled', data: { jobId, outputsExpireAt: iso(now + command.data.retentionMs), at } },
      ]
    }
    case 'ExpireJob': {
      requireJob(state)
      if (!isFinished(state) || state.status === 'expired') return []
      if (state.outputsExpireAt === null || now < state.outputsExpireAt) return []
      return [{ type: 'JobExpired', data: { jobId, at } }]
    }
    case 'DeleteJob': {
      requireJob(state)
      if (!isFinished(state)) {
        throw new DomainError(
          'job_running',
          `The job is ${state.status}; cancel it while queued or wait for it to finish.`,
        )
      }
      return [{ type: 'JobDeleted', data: { jobId, at } }]
    }
  }
}
