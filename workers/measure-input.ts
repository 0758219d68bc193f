// Measures a job's input (faces, pages) the way a job would, in an isolated child under the tool's
// time and memory limits, and stops there: nothing runs, nothing is charged. Used for price quotes.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import type { ServiceContext } from '../app/context.ts'
import { toolInputName } from '../app/jobs/input-names.ts'
import type { JobError } from '../domain/errors.ts'
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import type { JobInput } from '../domain/job/events.ts'
import type { ToolDefinition } from '../domain/tools/catalog.ts'
import { localInput } from './job-executor.ts'
import { runIsolated } from './runtime/isolated-run.ts'

/** What the parent answers after the measurement: stop the child before it does the work. */
const measuredOnly: JobError = { code: 'internal', message: 'measured only', hint: null }

export async function measureInput(
  ctx: ServiceContext,
  tool: ToolDefinition,
  input: JobInput,
  options: Record<string, unknown>,
): Promise<{ units: number; extraUnits: number }> {
  const outDir = await mkdtemp(join(tmpdir(), 'kiln-quote-'))
  try {
    const path = input.blobKey ? await localInput(ctx, input.blobKey, input.name, outDir) : null
    if (input.blobKey && !path)
      throw new DomainError('upload_not_found', 'The input file is no longer available.')
    let measured: { units: number; extraUnits: number } | null = null
    const outcome = await runIsolated({
      tool: tool.id,
      input: path
        ? {
            path,
            name: toolInputName(input.name),
            bytes: input.bytes,
            extension: extname(input.name).slice(1).toLowerCase(),
          }
        : null,
      options,
      outDir,
      timeoutMs: tool.limits.timeoutMs,
      memoryMb: tool.limits.memoryMb,
      afterMeasure: async (units, extraUnits) => {
        measured = { units, extraUnits }
        return measuredOnly
      },
      onProgress: () => {},
    })
    if (measured !== null) return measured
    const error = outcome.ok ? measuredOnly : outcome.error
    throw new DomainError(error.code as ErrorCode, error.message, { hint: error.hint })
  } finally {
    await rm(outDir, { recursive: true, force: true })
    await rm(`${outDir}.input`, { recursive: true, force: true })
  }
}
