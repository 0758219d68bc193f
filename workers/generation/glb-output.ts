// A provider's model becomes the job's files: it must really be a GLB, then it is finished.
import { DomainError } from '../../domain/errors.ts'
import type { ToolContext, ToolOutput } from '../../domain/ports/tool-runner.ts'
import type { Generation } from '../providers/port.ts'
import { finishModel } from './finish-3d.ts'

const isGlb = (bytes: Uint8Array) =>
  bytes.length >= 20 && new TextDecoder().decode(bytes.subarray(0, 4)) === 'glTF'

export async function modelOutput(
  generation: Generation,
  context: ToolContext,
  summary: Record<string, unknown>,
): Promise<ToolOutput> {
  if (!isGlb(generation.file.bytes)) {
    throw new DomainError(
      'upstream_failed',
      `${generation.source} returned a file that is not a GLB model. The charge was returned.`,
      { hint: 'Retry later with a new idempotency key.' },
    )
  }
  context.progress(0.9, 'finishing the model')
  const finished = await finishModel(generation.file.bytes, context.outDir)
  return {
    summary: {
      ...summary,
      provider: generation.source,
      scale_applied: finished.scale,
      notes: [...generation.notes, ...finished.notes],
    },
  }
}
