// Waits a bounded time for a job to finish, so no call outlives the client's timeout. While it
// waits it reports progress when the client sent a progress token: 0 when queued, 5 to 95 while the
// job runs (its own fraction), 100 once final. MCP wants progress to grow, so equal values are not sent.
import type { ProgressToken, ServerContext } from '@modelcontextprotocol/server'
import type { Services } from '../../app/services.ts'
import { DomainError } from '../../domain/errors.ts'
import { getJob, getJobRecord } from '../../projections/jobs/queries.ts'
import type { JobResource } from '../../projections/jobs/render.ts'
import { renderOptions } from '../signed-paths.ts'
import { isFinal } from './results.ts'

const firstPollMs = 100
const maxPollMs = 1000

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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })

/** The job as it stands when it finished, the wait ran out, or the client went away. */
export async function waitForJob(
  services: Services,
  accountId: string,
  jobId: string,
  waitMs: number,
  ctx: ServerContext,
): Promise<JobResource> {
  const report = progressReporter(ctx)
  const deadline = Date.now() + waitMs
  let pollMs = firstPollMs
  for (;;) {
    const job = await getJob(services.models, accountId, jobId, renderOptions(services))
    if (!job) throw new DomainError('not_found', `No job ${jobId}.`)
    const record = job.status === 'running' ? await getJobRecord(services.models, jobId) : null
    const message = record?.progress?.message ?? job.status
    await report(progressOf(job.status, record?.progress?.fraction), message)
    if (isFinal(job) || Date.now() >= deadline || ctx.mcpReq.signal.aborted) return job
    await sleep(Math.min(pollMs, deadline - Date.now()), ctx.mcpReq.signal)
    pollMs = Math.min(pollMs * 2, maxPollMs)
  }
}
