// One delivery of a job: start it, measure the input in the isolated child, charge the exact price
// (or fail with insufficient_credits, charging nothing), run, store the outputs, finish, and settle
// the account (release the slot; refund a failed job). Every step is idempotent, so a duplicated
// publish, a redelivery after a crash or a late ack still gives one charge, one result, one status.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative } from 'node:path'
import { jobOutputKey, type ServiceContext } from '../app/context.ts'
import { accountDecider, jobDecider } from '../app/deciders.ts'
import { handleCommand, readState } from '../app/handle-command.ts'
import { toolInputName } from '../app/jobs/input-names.ts'
import { failJob, settleAccount } from '../app/jobs/settle-job.ts'
import { accountStream } from '../domain/account/events.ts'
import type { JobFile } from '../domain/job/events.ts'
import { jobStream } from '../domain/job/events.ts'
import { isFinished } from '../domain/job/state.ts'
import type { Delivery, JobMessage } from '../domain/ports/dispatcher.ts'
import type { ToolInputFile } from '../domain/ports/tool-runner.ts'
import { getTool, isToolId } from '../domain/tools/catalog.ts'
import { priceFor } from '../domain/tools/pricing.ts'
import { runIsolated } from './runtime/isolated-run.ts'
import type { ChildSource } from './runtime/warm-pool.ts'
import { outputRetentionMs } from './tools/retention.ts'

const progressIntervalMs = 1000

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort()
}

/**
 * A local path of the job's input: the blob itself on the local store, a copy beside the job's output
 * folder on a remote one (S3). Null when the input is gone.
 */
export async function localInput(ctx: ServiceContext, key: string, name: string, outDir: string) {
  if ((await ctx.blobs.size(key)) === null) return null
  const path = ctx.blobs.localPath(key)
  if (path) return path
  const copy = join(`${outDir}.input`, `input${extname(name).toLowerCase()}`)
  await mkdir(dirname(copy), { recursive: true })
  await ctx.blobs.download(key, copy)
  return copy
}

export async function executeJob(
  ctx: ServiceContext,
  message: JobMessage,
  delivery: Delivery,
  workerName: string,
  /** Where the job's child process comes from (the warm pool); a fresh fork per job by default. */
  children?: ChildSource,
): Promise<void> {
  const stream = jobStream(message.jobId)
  const { state: job } = await readState(ctx.store, stream, jobDecider)
  if (!job.exists || job.deleted || isFinished(job)) return
  if (job.attempt >= ctx.config.maxJobAttempts) {
    await failJob(
      ctx,
      job.jobId,
      {
        code: 'internal',
        message: `The job failed ${job.attempt} times in a row.`,
        hint: 'Retry later; failed jobs cost nothing.',
      },
      null,
    )
    return
  }
  const started = await handleCommand(ctx.store, stream, jobDecider, {
    type: 'StartJob',
    data: { attempt: job.attempt + 1, worker: workerName, now: ctx.now() },
  })
  // Another worker started this attempt first: it owns the job.
  if (started.events.length === 0) return
  const attempt = job.attempt + 1
  if (!isToolId(job.tool)) {
    await failJob(
      ctx,
      job.jobId,
      { code: 'invalid_request', message: `Unknown tool ${job.tool}.`, hint: null },
      null,
    )
    return
  }
  const tool = getTool(job.tool)
  const outDir = await mkdtemp(join(tmpdir(), `kiln-${job.jobId}-`))
  // Every way out of here, returns and throws alike, removes the job's folders.
  try {
    let input: ToolInputFile | null = null
    if (job.input?.blobKey) {
      const path = await localInput(ctx, job.input.blobKey, job.input.name, outDir)
      if (!path) {
        await failJob(
          ctx,
          job.jobId,
          {
            code: 'upload_not_found',
            message: 'The input file is no longer available.',
            hint: 'Start a new job with the file.',
          },
          null,
        )
        return
      }
      input = {
        path,
        name: toolInputName(job.input.name),
        bytes: job.input.bytes,
        extension: extname(job.input.name).slice(1).toLowerCase(),
      }
    }

    let lastProgress = 0
    // What was charged for, to price the work a run could not do.
    let measured = { units: 0, extraUnits: 0 }
    const outcome = await runIsolated({
      tool: job.tool,
      input,
      options: job.options,
      outDir,
      timeoutMs: tool.limits.timeoutMs,
      memoryMb: tool.limits.memoryMb,
      children,
      afterMeasure: async (units, extraUnits) => {
        if (tool.limits.maxUnits !== null && units > tool.limits.maxUnits) {
          const unit = tool.pricing.kind === 'free' ? 'units' : (tool.pricing.unit ?? 'units')
          return {
            code: 'limit_exceeded',
            message: `${job.tool} takes up to ${tool.limits.maxUnits} ${unit}; this input has ${units}.`,
            hint: 'Simplify or split the input first.',
          }
        }
        const price = priceFor(tool.pricing, units, extraUnits)
        measured = { units, extraUnits }
        const charged = await handleCommand(ctx.store, accountStream(job.accountId), accountDecider, {
          type: 'ChargeJob',
          data: { jobId: job.jobId, units, price, now: ctx.now() },
        })
        // What the account recorded decides, not what this call appended: a redelivery appends
        // nothing, and a job is run only when its charge is on the ledger.
        const admitted = charged.state.jobs.get(job.jobId)
        const credits = admitted?.charged ?? null
        if (credits === null) {
          const declined = admitted?.declined
          if (declined?.reason === 'insufficient_credits')
            return {
              code: 'insufficient_credits',
              message: `This job costs ${price} credits (${units} ${tool.pricing.kind === 'free' ? 'units' : (tool.pricing.unit ?? 'jobs')}); the available balance is ${declined.available}. Nothing was charged.`,
              hint: 'Buy credits in the console, then start the job again.',
            }
          return {
            code: 'internal',
            message:
              'The job was recorded after its admission had lapsed, so it did not run. Nothing was charged.',
            hint: 'Start the job again; failed jobs cost nothing.',
          }
        }
        await handleCommand(ctx.store, stream, jobDecider, {
          type: 'RecordMeasurement',
          data: { units, credits, now: ctx.now() },
        })
        return null
      },
      onProgress: (fraction, progressMessage) => {
        delivery.working()
        const now = ctx.now()
        if (now - lastProgress < progressIntervalMs) return
        lastProgress = now
        void handleCommand(ctx.store, stream, jobDecider, {
          type: 'ReportProgress',
          data: { fraction, message: progressMessage, now },
        }).catch(() => {})
      },
    })

    ctx.metrics.jobRunSeconds.observe({ tool: job.tool }, (outcome.computeMs ?? 0) / 1000)
    ctx.metrics.jobsFinished.inc({ tool: job.tool, outcome: outcome.ok ? 'succeeded' : 'failed' })
    if (!outcome.ok) {
      await failJob(ctx, job.jobId, outcome.error, outcome.computeMs, attempt)
      return
    }
    // A restart may have overtaken this run (its node was thought dead): then its files must not
    // overwrite the outputs of the run that owns the job now.
    const { state: current } = await readState(ctx.store, stream, jobDecider)
    if (current.status !== 'running' || current.attempt !== attempt) return
    const files: JobFile[] = []
    for (const name of await listFiles(outDir)) {
      const stored = await ctx.blobs.putFile(jobOutputKey(job.jobId, name), join(outDir, name))
      files.push({ name, bytes: stored.bytes, sha256: stored.sha256 })
    }
    // Extra units charged but not done cost nothing: the charge less the price without them.
    const { units, extraUnits } = measured
    const done = Math.max(0, extraUnits - outcome.extraUnitsSkipped)
    const creditsReturned = priceFor(tool.pricing, units, extraUnits) - priceFor(tool.pricing, units, done)
    const { state } = await handleCommand(ctx.store, stream, jobDecider, {
      type: 'CompleteJob',
      data: {
        result: { ...outcome.summary, files },
        computeMs: outcome.computeMs,
        creditsReturned,
        retentionMs: outputRetentionMs(job.tool, ctx.config.outputRetentionMs),
        attempt,
        now: ctx.now(),
      },
    })
    if (state.status === 'succeeded')
      await settleAccount(ctx, state.accountId, job.jobId, 'succeeded', state.creditsReturned)
  } finally {
    await rm(outDir, { recursive: true, force: true })
    await rm(`${outDir}.input`, { recursive: true, force: true })
  }
}
