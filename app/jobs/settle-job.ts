// Settling a finished job on its account: the slot is released, and a failed job's charge goes back
// (a succeeded job's only for work it was charged for and could not do: its `creditsReturned`).
// Workers, the housekeeper and the composition root all finish jobs through here.
import { accountStream } from '../../domain/account/events.ts'
import type { JobError } from '../../domain/errors.ts'
import { jobStream } from '../../domain/job/events.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider, jobDecider } from '../deciders.ts'
import { handleCommand } from '../handle-command.ts'
import { clientSafeText } from '../security/client-safe-text.ts'

export async function settleAccount(
  ctx: ServiceContext,
  accountId: string,
  jobId: string,
  outcome: 'succeeded' | 'failed' | 'canceled',
  returned = 0,
) {
  await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'FinishJob',
    data: { jobId, outcome, returned, now: ctx.now() },
  })
}

/** Fails the job (only if `attempt` is still its current run, when given) and refunds it. */
export async function failJob(
  ctx: ServiceContext,
  jobId: string,
  error: JobError,
  computeMs: number | null,
  attempt?: number,
) {
  const { state } = await handleCommand(ctx.store, jobStream(jobId), jobDecider, {
    type: 'FailJob',
    data: {
      // Every failure reaches the client through here: a tool's or the OS's text loses paths and errno.
      error: { ...error, message: clientSafeText(error.message) },
      computeMs,
      retentionMs: ctx.config.outputRetentionMs,
      attempt,
      now: ctx.now(),
    },
  })
  if (state.status === 'failed') await settleAccount(ctx, state.accountId, jobId, 'failed')
}
