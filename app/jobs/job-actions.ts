// Cancel and delete, exactly as the spec's state table: a queued job is canceled; a finished job
// and its files are removed; anything else answers job_running. Another account's job is not found.
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import { jobStream } from '../../domain/job/events.ts'
import { isFinished, type JobState } from '../../domain/job/state.ts'
import { jobBlobPrefix, type ServiceContext } from '../context.ts'
import { accountDecider, jobDecider } from '../deciders.ts'
import { handleCommand, readState } from '../handle-command.ts'

export interface JobActionResult {
  id: string
  status: 'canceled' | 'deleted'
  position: number
}

async function ownedJob(ctx: ServiceContext, accountId: string, jobId: string): Promise<JobState> {
  const { state } = await readState(ctx.store, jobStream(jobId), jobDecider)
  if (!state.exists || state.deleted || state.accountId !== accountId)
    throw new DomainError('not_found', 'No such job.')
  return state
}

export async function cancelJob(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
): Promise<JobActionResult> {
  await ownedJob(ctx, accountId, jobId)
  const canceled = await handleCommand(ctx.store, jobStream(jobId), jobDecider, {
    type: 'CancelJob',
    data: { retentionMs: ctx.config.outputRetentionMs, now: ctx.now() },
  })
  const settled = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'FinishJob',
    data: { jobId, outcome: 'canceled', now: ctx.now() },
  })
  return { id: jobId, status: 'canceled', position: Math.max(canceled.position, settled.position) }
}

export async function deleteJob(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
): Promise<JobActionResult> {
  const job = await ownedJob(ctx, accountId, jobId)
  if (job.status === 'queued') return cancelJob(ctx, accountId, jobId)
  if (!isFinished(job))
    throw new DomainError('job_running', 'The job is running; wait for it to finish, then delete it.')
  const deleted = await handleCommand(ctx.store, jobStream(jobId), jobDecider, {
    type: 'DeleteJob',
    data: { now: ctx.now() },
  })
  await ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
  const forgotten = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'ForgetJob',
    data: { jobId, now: ctx.now() },
  })
  return { id: jobId, status: 'deleted', position: Math.max(deleted.position, forgotten.position) }
}
