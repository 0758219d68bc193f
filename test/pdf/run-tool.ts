// Runs the extract_pdf runner the way the worker does: measure, then run into a fresh outDir.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import type { ToolContext, ToolInputFile } from '../../domain/ports/tool-runner.ts'
import { type ExtractPdfOptions, extractPdfOptions } from '../../domain/tools/options/extract_pdf.ts'
import { runner } from '../../workers/tools/extract_pdf.ts'

export function inputFile(path: string): ToolInputFile {
  return {
    path,
    name: basename(path),
    bytes: statSync(path).size,
    extension: extname(path).slice(1).toLowerCase(),
  }
}

export function context(): ToolContext & { outDir: string } {
  return {
    outDir: mkdtempSync(join(tmpdir(), 'kiln-pdf-')),
    progress: () => {},
    signal: new AbortController().signal,
    randomBytes: (size) => new Uint8Array(size),
  }
}

export interface ToolRun {
  units: number
  /** Pages measured for OCR (the pricing's extra unit). */
  extraUnits: number
  summary: Record<string, unknown>
  files: Record<string, string>
}

export async function runTool(path: string, options: Partial<ExtractPdfOptions> = {}): Promise<ToolRun> {
  const parsed = extractPdfOptions.parse(options)
  const input = inputFile(path)
  const { units, extraUnits = 0 } = await runner.measure(input, parsed)
  const ctx = context()
  const { summary } = await runner.run(input, parsed, ctx)
  const files = Object.fromEntries(
    readdirSync(ctx.outDir).map((name) => [name, readFileSync(join(ctx.outDir, name), 'utf8')]),
  )
  return { units, extraUnits, summary, files }
}
