import type { JobPage } from '../projections/jobs/queries.ts'
import type { JobResource } from '../projections/jobs/render.ts'

type ApiSource = 'upload' | 'url' | 'body'

/** The spec names three input sources; a job's own (parameters-only) input counts as the body. */
export function asApiJob(
  job: JobResource,
): Omit<JobResource, 'input'> & { input: { name: string; bytes: number; source: ApiSource } } {
  const source: ApiSource =
    job.input.source === 'url' || job.input.source === 'body'
      ? job.input.source
      : job.input.source === 'none'
        ? 'body'
        : 'upload'
  return { ...job, input: { ...job.input, source } }
}

export const asApiPage = (page: JobPage) => ({ jobs: page.jobs.map(asApiJob), next_before: page.next_before })
