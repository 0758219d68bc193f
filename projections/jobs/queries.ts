// The jobs model as the REST layer reads it.
import type { JobStatus } from '../../domain/job/events.ts'
import { deepFreeze } from '../frozen.ts'
import type { ReadModels } from '../read-models.ts'
import type { Query } from '../read-store.ts'
import { type JobDoc, jobsCollection, jobsModel } from './job-doc.ts'
import { type JobResource, type RenderJobOptions, renderJob } from './render.ts'

const jobs = (models: ReadModels) => models.collection<JobDoc>(jobsModel, jobsCollection)

/** The job document with its internal fields (account, idempotency key, input blob, progress); null once deleted. */
export async function getJobRecord(models: ReadModels, jobId: string): Promise<JobDoc | null> {
  const doc = await (await jobs(models)).get(jobId)
  return doc && !doc.deleted ? doc : null
}

/**
 * The Job resource, when the job exists, is not deleted and belongs to the account. Read-only and
 * possibly shared: a job with no files to sign renders the same at any moment, so its resource is
 * made once per stored version (a polled job is read many times between changes) and frozen.
 */
export async function getJob(
  models: ReadModels,
  accountId: string,
  jobId: string,
  render: RenderJobOptions,
): Promise<Readonly<JobResource> | null> {
  const doc = await (await jobs(models)).peek(jobId)
  if (!doc || doc.deleted || doc.accountId !== accountId) return null
  // Signed URLs, or a held final state that shows after a grace, depend on the time of the read.
  if ((doc.result && doc.result.files.length > 0) || doc.awaitingSettlement) return renderJob(doc, render)
  const kept = rendered.get(doc)
  if (kept && kept.retentionMs === render.retentionMs) return kept.resource
  const resource = deepFreeze(renderJob(doc, render))
  rendered.set(doc, { retentionMs: render.retentionMs, resource })
  return resource
}

/** Resources of jobs without files, by the frozen document they were rendered from. */
const rendered = new WeakMap<object, { retentionMs: number | undefined; resource: Readonly<JobResource> }>()

export interface JobListQuery {
  /** 1 to 100. */
  limit: number
  /** The `next_before` of the previous page. */
  before?: number | null
  tool?: string | null
  status?: JobStatus | null
}

export interface JobPage {
  jobs: JobResource[]
  next_before: number | null
}

/** The account's jobs, newest first. */
export async function listJobs(
  models: ReadModels,
  accountId: string,
  { limit, before = null, tool = null, status = null }: JobListQuery,
  render: RenderJobOptions,
): Promise<JobPage> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new RangeError('limit must be an integer from 1 to 100')
  const query: Query = {
    where: {
      accountId,
      deleted: false,
      ...(tool === null ? {} : { tool }),
      ...(status === null ? {} : { status }),
    },
    orderBy: { field: 'seq', direction: 'desc' },
    // One more than asked tells whether another page follows.
    limit: limit + 1,
  }
  if (before !== null) query.below = { field: 'seq', value: before }
  const docs = await (await jobs(models)).find(query)
  const page = docs.slice(0, limit)
  return {
    jobs: page.map((doc) => renderJob(doc, render)),
    next_before: docs.length > limit ? page.at(-1)!.seq : null,
  }
}
