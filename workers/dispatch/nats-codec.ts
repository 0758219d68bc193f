// The wire form of a job on the NATS subjects: JSON of the port's JobMessage, nothing more.
import type { JobMessage } from '../../domain/ports/dispatcher.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export function encodeJob(job: JobMessage): Uint8Array {
  return encoder.encode(JSON.stringify({ jobId: job.jobId, tool: job.tool }))
}

/** Throws on anything that is not a job, so a foreign message on the subject is never run. */
export function decodeJob(data: Uint8Array): JobMessage {
  const value: unknown = JSON.parse(decoder.decode(data))
  if (typeof value === 'object' && value !== null && 'jobId' in value && 'tool' in value) {
    const { jobId, tool } = value
    if (typeof jobId === 'string' && typeof tool === 'string') return { jobId, tool }
  }
  throw new TypeError('not a job message')
}

/** A tool name becomes one subject token, so it must not contain separators or wildcards. */
export function assertSubjectToken(tool: string): void {
  if (!/^[A-Za-z0-9_-]+$/.test(tool)) throw new RangeError(`tool name cannot be a subject token: ${tool}`)
}
