// The contract between the job lifecycle and one tool's implementation.
// A runner executes inside an isolated worker process; it reads its input from disk and writes outputs into outDir.

export interface ToolInputFile {
  /** Absolute path of the input file on local disk. */
  path: string
  /** The original file name (gives the format by its extension). */
  name: string
  bytes: number
  /** Lower-case extension without the dot, e.g. "glb", "pdf". */
  extension: string
}

export interface ToolContext {
  /** Empty folder the runner writes its outputs into; every file left there becomes a job output. */
  outDir: string
  /** Report progress in [0, 1] with an optional short message. */
  progress(fraction: number, message?: string): void
  signal: AbortSignal
  /** Cryptographically secure random bytes (random tools). */
  randomBytes(size: number): Uint8Array
}

export interface ToolOutput {
  /** Tool-specific result fields (the spec's summary fields), without `files`. */
  summary: Record<string, unknown>
  /**
   * Extra units charged at measurement that the run could not do (OCR pages the renderer could not
   * draw): their credits go back, as a failed job's do.
   */
  extraUnitsSkipped?: number
}

export interface Measurement {
  /** Units priced by the tool: faces or pages; 0 for parameter tools. */
  units: number
  /** Units of the pricing's `extra` (e.g. pages that need OCR), when the tool has one. */
  extraUnits?: number
}

export interface ToolRunner<Options = Record<string, unknown>> {
  /** Cheap measurement of the input for pricing; throws DomainError (limit_exceeded, invalid_mesh, ...). */
  measure(input: ToolInputFile | null, options: Options): Promise<Measurement>
  run(input: ToolInputFile | null, options: Options, context: ToolContext): Promise<ToolOutput>
}
