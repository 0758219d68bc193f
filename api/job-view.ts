import { deepFreeze, isDeeplyFrozen } from '../projections/frozen.ts'
import type { JobPage } from '../projections/jobs/queries.ts'
import type { JobResource } from '../projections/jobs/render.ts'

type ApiSource = 'upload' | 'url' | 'body'

/** The spec names three input sources; a job's own (parameters-only) input counts as the body. */
type ApiJob = Omit<JobResource, 'input'> & { input: { name: string; bytes: number; source: ApiSource } }

/** The API views of shared (frozen) resources, made once each, frozen too. */
const views = new WeakMap<object, Readonly<ApiJob>>()

export function asApiJob(job: Readonly<JobResource>): Readonly<ApiJob> {
  if (!isDeeplyFrozen(job)) return apiView(job)
  let view = views.get(job)
  if (!view) {
    view = deepFreeze(apiView(job))
    views.set(job, view)
  }
  return view
}

function apiView(job: Readonly<JobResource>): ApiJob {
  const source: ApiSource =
    job.input.source === 'url' || job.input.source === 'body'
      ? job.input.source
      : job.input.source === 'none'
        ? 'body'
        : 'upload'
  return { ...job, input: { ...job.input, source } }
}

export const asApiPage = (page: JobPage) => ({ jobs: page.jobs.map(asApiJob), next_before: page.next_before })
