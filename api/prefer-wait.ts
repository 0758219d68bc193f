// `Prefer: wait=N` (RFC 7240): the client would rather the answer waited up to N seconds for the job
// to be final. Capped at 60 s; a held request is a listener on the shared job events (app/jobs/
// job-events.ts), not a poller. The answer says what was honoured in `Preference-Applied`.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { holdForJob } from '../app/jobs/job-events.ts'
import type { Services } from '../app/services.ts'
import { finalStatuses } from '../domain/job/events.ts'
import { getJob } from '../projections/jobs/queries.ts'
import type { JobResource } from '../projections/jobs/render.ts'
import { renderOptions } from './signed-paths.ts'

export const maxWaitSeconds = 60

const isFinal = (job: JobResource) => finalStatuses.has(job.status)

/** The seconds asked for with `Prefer: wait=N`, capped; null when the client did not ask. */
export function preferredWaitSeconds(header: string | string[] | undefined): number | null {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header]
  for (const value of values)
    for (const preference of value.split(/[,;]/)) {
      const match = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*$/i.exec(preference)
      if (match) return Math.min(Number(match[1]), maxWaitSeconds)
    }
  return null
}

/** Holds the request as the client preferred, then answers the job as it stands. */
export async function jobAfterPreferredWait(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
  job: JobResource,
): Promise<JobResource> {
  const seconds = preferredWaitSeconds(request.headers.prefer)
  if (seconds === null) return job
  reply.header('preference-applied', `wait=${seconds}`)
  if (isFinal(job) || seconds === 0) return job
  const gone = new AbortController()
  const onClose = () => gone.abort()
  // The response closing before we answered: the client went away.
  reply.raw.once('close', onClose)
  try {
    return await holdForJob(services.jobEvents, job.id, {
      waitMs: seconds * 1000,
      signal: gone.signal,
      read: async () => (await getJob(services.models, accountId, job.id, renderOptions(services))) ?? job,
      done: isFinal,
    })
  } finally {
    reply.raw.off('close', onClose)
  }
}
