// The spec's Job resource from a job document. Download URLs are signed here, at read time: valid
// for at most 24 hours and never past the moment the outputs expire.
import type { JobError } from '../../domain/errors.ts'
import type { JobStatus } from '../../domain/job/events.ts'
import type { JobDoc } from './job-doc.ts'

export type SignFileUrl = (jobId: string, fileName: string, expiresAt: Date) => string

export interface RenderJobOptions {
  now: Date
  signFileUrl: SignFileUrl
  /** Result retention, for the expected outputs_expire_at of a job that has not finished yet. */
  retentionMs?: number
}

export interface JobFileResource {
  name: string
  bytes: number
  sha256: string
  url: string
}

export interface JobResource {
  id: string
  tool: string
  status: JobStatus
  input: { name: string; bytes: number; source: string }
  options: Record<string, unknown>
  error: JobError | null
  result: ({ [field: string]: unknown } & { files: JobFileResource[] }) | null
  compute_ms: number | null
  credits_charged: number | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  outputs_expire_at: string
}

const maxUrlValidityMs = 24 * 60 * 60 * 1000
const defaultRetentionMs = 24 * 60 * 60 * 1000

/**
 * How long a finished job waits for its account's settlement before it reads final anyway. A
 * settlement follows its job's end within milliseconds, or within the housekeeper's next pass after
 * a crash; one that has not come after this never will (a job recorded after its admission had lapsed
 * and been released, then ended before it was charged).
 */
export const settlementGraceMs = 60_000

/** The document as clients see it at `now`: a held final state shows once settled, or after the grace. */
export function shownJob(doc: JobDoc, now: Date): JobDoc {
  const held = doc.awaitingSettlement
  if (!held || now.getTime() - Date.parse(held.finishedAt ?? held.createdAt) < settlementGraceMs) return doc
  return { ...doc, ...held, awaitingSettlement: null }
}

export function renderJob(
  stored: JobDoc,
  { now, signFileUrl, retentionMs = defaultRetentionMs }: RenderJobOptions,
): JobResource {
  const doc = shownJob(stored, now)
  const outputsExpireAt =
    doc.outputsExpireAt ?? new Date(Date.parse(doc.createdAt) + retentionMs).toISOString()
  const urlsExpireAt = Math.min(now.getTime() + maxUrlValidityMs, Date.parse(outputsExpireAt))
  // Expired outputs are gone: no file is offered any more.
  const outputsLive = doc.status !== 'expired' && urlsExpireAt > now.getTime()
  const result = doc.result && {
    ...doc.result,
    files: outputsLive
      ? doc.result.files.map((file) => ({
          name: file.name,
          bytes: file.bytes,
          sha256: file.sha256,
          url: signFileUrl(doc.id, file.name, new Date(urlsExpireAt)),
        }))
      : [],
  }
  return {
    id: doc.id,
    tool: doc.tool,
    status: doc.status,
    input: { name: doc.input.name, bytes: doc.input.bytes, source: doc.input.source },
    options: doc.options,
    error: doc.error,
    result,
    compute_ms: doc.computeMs,
    credits_charged: doc.creditsCharged,
    created_at: doc.createdAt,
    started_at: doc.startedAt,
    finished_at: doc.finishedAt,
    outputs_expire_at: outputsExpireAt,
  }
}
