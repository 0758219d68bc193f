// Keeps the system moving from the event log alone, so nothing is lost when a process dies:
// - queued jobs are (re)published to the dispatcher; jobs left running past their time limit plus a
//   grace period (their node died) are published again, to be re-run or failed by the executor;
// - finished jobs whose account was not settled get settled (slot released, failed jobs refunded);
// - admissions whose job stream was never created are released;
// - job outputs, uploads and credit lots expire when their time comes.
// It keeps only what is still pending in memory, and checkpoints that state (with the position it
// reflects) into the read store, so a restart, or the process taking the lease over, resumes from the
// checkpoint instead of folding the log from position 0. With no checkpoint it folds from 0.

import { jobBlobPrefix, type ServiceContext } from '../app/context.ts'
import { accountDecider, jobDecider, uploadDecider } from '../app/deciders.ts'
import { handleCommand } from '../app/handle-command.ts'
import { settleAccount } from '../app/jobs/settle-job.ts'
import { log } from '../app/log.ts'
import { uploadFolder } from '../app/uploads.ts'
import { type AccountEvent, accountStream, type JobOutcome } from '../domain/account/events.ts'
import { type JobEvent, type JobStatus, jobStream } from '../domain/job/events.ts'
import type { RecordedEvent, Subscription } from '../domain/ports/event-store.ts'
import { getTool, isToolId } from '../domain/tools/catalog.ts'
import { type UploadEvent, uploadStream } from '../domain/upload/events.ts'

type HousekeptEvent = JobEvent | AccountEvent | UploadEvent

const outcomeOf: Record<'JobSucceeded' | 'JobFailed' | 'JobCanceled', JobOutcome> = {
  JobSucceeded: 'succeeded',
  JobFailed: 'failed',
  JobCanceled: 'canceled',
}

export interface TrackedJob {
  accountId: string
  tool: string
  status: JobStatus | 'deleted'
  startedAt: number
  outputsExpireAt: number | null
  outcome: JobOutcome | null
  /** Credits a succeeded job returns on settling (absent in checkpoints written before: none). */
  returned?: number
  released: boolean
  publishedAt: number
  republishes: number
}

/** The housekeeper's pending state at a position of the log: what it needs to resume from there. */
export interface HousekeepingCheckpoint {
  position: number
  jobs: [string, TrackedJob][]
  admissions: [string, { accountId: string; at: number }][]
  releasedBeforeCreation: string[]
  uploads: [string, { endsAt: number; blobKey: string | null }][]
  lots: [string, { accountId: string; expiresAt: number }][]
}

export interface CheckpointStore {
  load(): Promise<HousekeepingCheckpoint | null>
  save(checkpoint: HousekeepingCheckpoint): Promise<void>
}

export interface HousekeeperOptions {
  intervalMs?: number
  /** Where the pending state is checkpointed; none: fold the log from 0 at every start. */
  checkpoints?: CheckpointStore | null
  /** At most one checkpoint per this many milliseconds. */
  checkpointEveryMs?: number
  /** Admissions older than this with no job stream are released. */
  orphanAdmissionMs?: number
  /** In the embedded mode every running job found at start-up was orphaned by the last process. */
  runningJobsAreOrphansAtStart?: boolean
}

export class Housekeeper {
  readonly #ctx: ServiceContext
  readonly #options: Required<HousekeeperOptions>
  readonly #jobs = new Map<string, TrackedJob>()
  readonly #admissions = new Map<string, { accountId: string; at: number }>()
  readonly #releasedBeforeCreation = new Set<string>()
  readonly #uploads = new Map<string, { endsAt: number; blobKey: string | null }>()
  readonly #lots = new Map<string, { accountId: string; expiresAt: number }>()
  #subscription: Subscription | null = null
  #timer: NodeJS.Timeout | null = null
  #caughtUpAt = 0
  #position = 0
  #ticking = false
  #startedAt = 0
  #savedPosition = -1
  #savedAt = 0

  constructor(ctx: ServiceContext, options: HousekeeperOptions = {}) {
    this.#ctx = ctx
    this.#options = {
      intervalMs: 2000,
      checkpoints: null,
      checkpointEveryMs: 5000,
      orphanAdmissionMs: 60_000,
      runningJobsAreOrphansAtStart: true,
      ...options,
    }
  }

  async start(): Promise<void> {
    this.#startedAt = this.#ctx.now()
    this.#caughtUpAt = await this.#ctx.store.headPosition()
    const checkpoint = await this.#options.checkpoints?.load().catch(() => null)
    if (checkpoint) this.#restore(checkpoint)
    this.#subscription = this.#ctx.store.subscribeToAll({
      fromPosition: this.#position,
      onEvent: (event) => this.#apply(event),
      onError: (error) => log.error({ err: error }, 'housekeeper: subscription error'),
    })
    this.#timer = setInterval(() => void this.tick(), this.#options.intervalMs)
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    await this.#subscription?.stop()
  }

  /** Checkpoints now, whatever the interval (for tests and orderly shutdowns). */
  async checkpointNow(): Promise<void> {
    this.#savedAt = 0
    await this.#saveCheckpoint()
  }

  /** The position the housekeeper has folded up to (where a resumed one starts). */
  get position(): number {
    return this.#position
  }

  #restore(checkpoint: HousekeepingCheckpoint): void {
    this.#position = checkpoint.position
    // A resumed housekeeper has published nothing yet: queued jobs go to the bus again (the
    // dispatcher and the executor make a repeat harmless).
    for (const [jobId, job] of checkpoint.jobs) this.#jobs.set(jobId, { ...job, publishedAt: 0 })
    for (const [jobId, admission] of checkpoint.admissions) this.#admissions.set(jobId, admission)
    for (const jobId of checkpoint.releasedBeforeCreation) this.#releasedBeforeCreation.add(jobId)
    for (const [uploadId, upload] of checkpoint.uploads) this.#uploads.set(uploadId, upload)
    for (const [lotId, lot] of checkpoint.lots) this.#lots.set(lotId, lot)
  }

  /** The pending state as of the last applied event, taken synchronously so the two agree. */
  #checkpoint(): HousekeepingCheckpoint {
    return {
      position: this.#position,
      jobs: [...this.#jobs],
      admissions: [...this.#admissions],
      releasedBeforeCreation: [...this.#releasedBeforeCreation],
      uploads: [...this.#uploads],
      lots: [...this.#lots],
    }
  }

  async #saveCheckpoint(): Promise<void> {
    const store = this.#options.checkpoints
    const now = this.#ctx.now()
    if (
      !store ||
      this.#position === this.#savedPosition ||
      now - this.#savedAt < this.#options.checkpointEveryMs
    )
      return
    const checkpoint = this.#checkpoint()
    await store.save(checkpoint)
    this.#savedPosition = checkpoint.position
    this.#savedAt = now
  }

  get caughtUp(): boolean {
    return this.#position >= this.#caughtUpAt
  }

  #apply(recorded: RecordedEvent): void {
    this.#position = recorded.position
    // Event types are unique across the aggregates, so the type names the data's shape; events of
    // the other streams (capacity, payments) fall through the switch untouched.
    const event = { type: recorded.type, data: recorded.data } as HousekeptEvent
    switch (event.type) {
      case 'JobAdmitted':
        this.#admissions.set(event.data.jobId, {
          accountId: event.data.accountId,
          at: Date.parse(event.data.at),
        })
        break
      case 'JobReleased': {
        const job = this.#jobs.get(event.data.jobId)
        this.#admissions.delete(event.data.jobId)
        if (job) job.released = true
        else this.#releasedBeforeCreation.add(event.data.jobId)
        break
      }
      case 'JobCreated':
        this.#admissions.delete(event.data.jobId)
        this.#jobs.set(event.data.jobId, {
          accountId: event.data.accountId,
          tool: event.data.tool,
          status: 'queued',
          startedAt: 0,
          outputsExpireAt: null,
          outcome: null,
          released: this.#releasedBeforeCreation.delete(event.data.jobId),
          publishedAt: 0,
          republishes: 0,
        })
        break
      case 'JobStarted': {
        const job = this.#jobs.get(event.data.jobId)
        if (job) Object.assign(job, { status: 'running', startedAt: Date.parse(event.data.at) })
        break
      }
      case 'JobSucceeded':
      case 'JobFailed':
      case 'JobCanceled': {
        const job = this.#jobs.get(event.data.jobId)
        if (job) {
          job.outcome = outcomeOf[event.type]
          job.status = job.outcome
          if (event.type === 'JobSucceeded') job.returned = event.data.creditsReturned ?? 0
          job.outputsExpireAt = Date.parse(event.data.outputsExpireAt)
        }
        break
      }
      case 'JobExpired':
      case 'JobDeleted': {
        const job = this.#jobs.get(event.data.jobId)
        if (job) job.status = event.type === 'JobExpired' ? 'expired' : 'deleted'
        break
      }
      case 'UploadCreated':
        this.#uploads.set(event.data.uploadId, { endsAt: Date.parse(event.data.urlExpiresAt), blobKey: null })
        break
      case 'UploadReceived':
        this.#uploads.set(event.data.uploadId, {
          endsAt: Date.parse(event.data.retainUntil),
          blobKey: event.data.blobKey,
        })
        break
      case 'UploadExpired':
        this.#uploads.delete(event.data.uploadId)
        break
      case 'CreditsGranted':
        this.#lots.set(event.data.lotId, {
          accountId: event.data.accountId,
          expiresAt: Date.parse(event.data.expiresAt),
        })
        break
      case 'LotExpired':
        this.#lots.delete(event.data.lotId)
        break
    }
  }

  /** One pass over everything pending. Safe to run concurrently with the live system: every action is idempotent. */
  async tick(): Promise<void> {
    if (!this.caughtUp || this.#ticking) return
    this.#ticking = true
    try {
      const now = this.#ctx.now()
      for (const [jobId, job] of this.#jobs)
        await this.#tendJob(jobId, job, now).catch((error) =>
          log.error({ jobId, err: error }, 'housekeeper: tending the job failed; retried next tick'),
        )
      for (const [jobId, admission] of this.#admissions) {
        if (now - admission.at < this.#options.orphanAdmissionMs) continue
        await handleCommand(this.#ctx.store, accountStream(admission.accountId), accountDecider, {
          type: 'ReleaseOrphanedAdmission',
          data: { jobId, now },
        }).catch(() => {})
        this.#admissions.delete(jobId)
      }
      for (const [uploadId, upload] of this.#uploads) {
        if (now < upload.endsAt) continue
        await handleCommand(this.#ctx.store, uploadStream(uploadId), uploadDecider, {
          type: 'ExpireUpload',
          data: { now },
        })
        // The whole folder: a PUT refused or cut off may have left its own blob beside the recorded one.
        await this.#ctx.blobs.deletePrefix(uploadFolder(uploadId))
        this.#uploads.delete(uploadId)
      }
      const dueAccounts = new Set(
        [...this.#lots.values()].filter((lot) => lot.expiresAt <= now).map((lot) => lot.accountId),
      )
      for (const accountId of dueAccounts) {
        await handleCommand(this.#ctx.store, accountStream(accountId), accountDecider, {
          type: 'ExpireLots',
          data: { now },
        })
        for (const [lotId, lot] of this.#lots)
          if (lot.accountId === accountId && lot.expiresAt <= now) this.#lots.delete(lotId)
      }
      await this.#saveCheckpoint().catch((error) =>
        log.error({ err: error }, 'housekeeper: checkpoint not written'),
      )
    } finally {
      this.#ticking = false
    }
  }

  async #tendJob(jobId: string, job: TrackedJob, now: number): Promise<void> {
    switch (job.status) {
      case 'queued':
        if (job.publishedAt === 0) {
          // Marked only once the bus took it: a publish that fails is tried again next tick.
          await this.#ctx.dispatcher.publish({ jobId, tool: job.tool })
          job.publishedAt = now
        }
        return
      case 'running': {
        const limit = isToolId(job.tool) ? getTool(job.tool).limits.timeoutMs : 600_000
        const orphanedAtStart = this.#options.runningJobsAreOrphansAtStart && job.startedAt < this.#startedAt
        const overdue =
          now - Math.max(job.startedAt, job.publishedAt) > limit + this.#ctx.config.stuckJobGraceMs
        if (orphanedAtStart ? job.publishedAt === 0 : overdue) {
          await this.#ctx.dispatcher.publish({ jobId, tool: job.tool, republish: job.republishes + 1 })
          job.republishes += 1
          job.publishedAt = now
        }
        return
      }
      case 'succeeded':
      case 'failed':
      case 'canceled':
        await this.#settle(jobId, job)
        if (job.outputsExpireAt !== null && now >= job.outputsExpireAt) {
          await handleCommand(this.#ctx.store, jobStream(jobId), jobDecider, {
            type: 'ExpireJob',
            data: { now },
          })
          await this.#ctx.blobs.deletePrefix(jobBlobPrefix(jobId))
          job.status = 'expired'
        }
        return
      case 'expired':
      case 'deleted':
        await this.#settle(jobId, job)
        this.#jobs.delete(jobId)
        return
    }
  }

  async #settle(jobId: string, job: TrackedJob): Promise<void> {
    if (job.released || job.outcome === null) return
    await settleAccount(this.#ctx, job.accountId, jobId, job.outcome, job.returned ?? 0)
    job.released = true
  }
}
