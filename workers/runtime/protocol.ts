// Messages between the worker and the isolated child process that runs one job's work.
import type { JobError } from '../../domain/errors.ts'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'

export type ParentMessage =
  | {
      type: 'measure'
      tool: string
      input: ToolInputFile | null
      options: Record<string, unknown>
      outDir: string
      /** The worker's environment when the job is handed over (a warm child started earlier). */
      env: Record<string, string>
    }
  | { type: 'run' }

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'received' }
  | { type: 'measured'; units: number; extraUnits: number }
  | { type: 'progress'; fraction: number; message: string | null }
  | { type: 'done'; summary: Record<string, unknown>; extraUnitsSkipped: number }
  | { type: 'failed'; error: JobError }
