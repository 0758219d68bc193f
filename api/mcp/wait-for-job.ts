// Waits a bounded time for a job to finish (on the process's shared job events, as REST's
// `Prefer: wait` does), so no call outlives the client's timeout. While it
// waits it reports progress when the client sent a progress token: 0 when queued, 5 to 95 while the
// job runs (its own fraction), 100 once final. MCP wants progress to grow, so equal values are not sent.
import type { ProgressToken, ServerContext } from '@modelcontextprotocol/server'
import { holdForJob } from '../../app/jobs/job-events.ts'
import type { Services } from '../../app/services.ts'
import { DomainError } from '../../domain/errors.ts'
import { getJob, getJobRecord } from '../../projections/jobs/queries.ts'
import type { JobResource } from '../../projections/jobs/render.ts'
import { renderOptions } from '../signed-paths.ts'
import { isFinal } from './results.ts'

function progressOf(status: JobResource['status'], fraction: number | undefined): number {
  if (status === 'queued') return 0
  if (status === 'running') return Math.round(5 + 90 * Math.min(Math.max(fraction ?? 0, 0), 1))
  return 100
}

function progressReporter(ctx: ServerContext) {
  const token: ProgressToken | undefined = ctx.mcpReq._meta?.progressToken
  let last = -1
  return async (progress: number, message: string) => {
    if (token === undefined || progress <= last) return
    last = progress
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress, total: 100, message },
    })
  }
}

/** The job as it stands when it finished, the wait ran out, or the client went away. */
export function waitForJob(
  services: Services,
  accountId: string,
  jobId: string,
  waitMs: number,
  ctx: ServerContext,
): Promise<JobResource> {
  const report = progressReporter(ctx)
  return holdForJob(services.jobEvents, jobId, {
    waitMs,
    signal: ctx.mcpReq.signal,
    async read() {
      const job = await getJob(services.models, accountId, jobId, renderOptions(services))
      if (!job) throw new DomainError('not_found', `No job ${jobId}.`)
      return job
    },
    done: isFinal,
    async onRead(job) {
      const record = job.status === 'running' ? await getJobRecord(services.models, jobId) : null
      await report(
        progressOf(job.status, record?.progress?.fraction),
        record?.progress?.message ?? job.status,
      )
    },
  })
}
