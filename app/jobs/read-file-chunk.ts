// Text outputs read in chunks by byte offset. A chunk never ends inside a UTF-8 character, so
// `next_offset` is always a character boundary and chunks concatenate to the exact file.
import { extname } from 'node:path'
import { DomainError } from '../../domain/errors.ts'
import { getJobRecord } from '../../projections/jobs/queries.ts'
import type { ReadModels } from '../../projections/read-models.ts'
import { jobOutputKey, type ServiceContext } from '../context.ts'

export const textExtensions = new Set(['.txt', '.json', '.md', '.csv'])

export interface FileChunk {
  name: string
  offset: number
  next_offset: number
  total_bytes: number
  eof: boolean
  text: string
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80

/**
 * Where a chunk read from `bytes` (which may start inside a character, and holds up to three bytes
 * past `limit`) begins and ends: forward past continuation bytes at the start, back from `limit` to
 * the nearest character start at the end, unless the bytes end first.
 */
export function characterBounds(bytes: Uint8Array, limit: number): { begin: number; end: number } {
  let begin = 0
  while (begin < bytes.length && isContinuation(bytes[begin])) begin++
  let end = Math.min(limit, bytes.length)
  if (end < bytes.length) while (end > begin && isContinuation(bytes[end])) end--
  return { begin, end }
}

export async function readFileChunk(
  ctx: ServiceContext,
  models: ReadModels,
  accountId: string,
  jobId: string,
  name: string,
  offset: number,
  limit: number,
): Promise<FileChunk> {
  const job = await getJobRecord(models, jobId)
  const now = ctx.now()
  const file = job?.result?.files.find((f) => f.name === name)
  const expired =
    !job ||
    job.status === 'expired' ||
    (job.outputsExpireAt !== null && now >= Date.parse(job.outputsExpireAt))
  if (!job || job.accountId !== accountId || expired || !file)
    throw new DomainError('not_found', 'No such file (outputs expire 24 hours after the job finishes).')
  if (!textExtensions.has(extname(name).toLowerCase())) {
    throw new DomainError(
      'not_text',
      `${name} is not a text output; download it from its signed URL in result.files.`,
    )
  }
  const key = jobOutputKey(jobId, name)
  const total = (await ctx.blobs.size(key)) ?? 0
  const start = Math.min(offset, total)
  // Three more bytes than asked let the cut move forward to a boundary when needed; we only move back.
  const bytes = await ctx.blobs.readRange(key, start, Math.min(limit + 3, total - start))
  const { begin, end } = characterBounds(bytes, limit)
  const next = start + end
  return {
    name,
    offset: start + begin,
    next_offset: next,
    total_bytes: total,
    eof: next >= total,
    text: bytes.subarray(begin, end).toString('utf8'),
  }
}
