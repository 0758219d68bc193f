// Typed entry to the PDF core. It uses the napi-rs addon built for this platform, its OCR
// renderer in a child process of its own (process-isolated.ts), else the wasm32-wasip1-threads
// build of the same binding (native/build-wasm.ts; also when KILN_PDF_BACKEND=wasm; run in a
// worker thread of its own, wasm-isolated.ts), else fails with a message that says how to build
// one. Core failures arrive as values and leave here as DomainErrors with the service's codes.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import { isolatedBinding } from './isolated.ts'
import { loadNativeBuild } from './load.ts'
import type {
  CountOutcome,
  ExtractOptions,
  ExtractOutcome,
  PdfExtraction,
  PdfFailure,
  PdfLine,
  PdfPage,
  RenderedPage,
  RenderOutcome,
} from './pdf-node/index.d.ts'
import { childProcessHost } from './process-isolated.ts'
import { wasmWorkerHost } from './wasm-isolated.ts'

export type { PdfExtraction, PdfLine, PdfPage }

export interface PdfBinding {
  extractText(bytes: Buffer, options: ExtractOptions): Promise<ExtractOutcome>
  countPages(bytes: Buffer): Promise<CountOutcome>
  renderPage(bytes: Buffer, pageNumber: number, dpi: number): Promise<RenderOutcome>
}

export interface LoadedPdfBinding {
  binding: PdfBinding
  kind: 'native' | 'wasm'
}

/** The loader napi-rs generates beside the .wasm file; it needs @napi-rs/wasm-runtime. */
export const wasmLoaderPath = join(import.meta.dirname, 'pdf-node', 'pdf.wasi.cjs')

/** The native addon as loaded, and the file it was loaded from. */
export interface NativePdfBuild {
  addon: PdfBinding
  path: string
}

/**
 * How long the renderer may draw one page: a Letter page takes a tenth of a second to a second at
 * 300 dpi, and pages built to keep it busy (a path of a million segments, a dash pattern of a
 * billion dashes) would take hours; the job's own time limit does not stop work on another thread.
 */
export const RENDER_TIME_LIMIT_MS = 30_000

/**
 * Picks the native addon, else the WASM build at `wasmPath`; throws when neither exists. The
 * native renderer may take `renderTimeLimitMs` a page.
 */
export function selectPdfBinding(
  native: NativePdfBuild | null,
  wasmPath: string,
  renderTimeLimitMs = RENDER_TIME_LIMIT_MS,
): LoadedPdfBinding {
  if (native) return { binding: withIsolatedRenderer(native, renderTimeLimitMs), kind: 'native' }
  if (existsSync(wasmPath))
    return {
      binding: isolatedBinding<PdfBinding>(
        wasmWorkerHost(wasmPath),
        ['extractText', 'countPages', 'renderPage'],
        () => ({
          failure: brokenReader,
        }),
      ),
      kind: 'wasm',
    }
  throw new Error(
    `The PDF core is not built for ${process.platform}-${process.arch}: run \`node native/build.ts pdf-node\` ` +
      '(native addon) or `node native/build-wasm.ts pdf-node` (WASM fallback).',
  )
}

/**
 * The addon with its renderer in a child process: hayro, the renderer, is not ours to bound. A
 * page that overflows its stack (a PostScript function nested 100,000 deep) ends the process it
 * runs in, and one that keeps it drawing for hours can only be stopped with its process. Text
 * extraction, our own code, runs here.
 */
function withIsolatedRenderer({ addon, path }: NativePdfBuild, timeLimitMs: number): PdfBinding {
  const { renderPage } = isolatedBinding<Pick<PdfBinding, 'renderPage'>>(
    childProcessHost(path),
    ['renderPage'],
    () => ({ failure: stoppedRenderer }),
    { ms: timeLimitMs, overrun: () => ({ failure: renderOverrun(timeLimitMs) }) },
  )
  return { extractText: addon.extractText, countPages: addon.countPages, renderPage }
}

let loaded: LoadedPdfBinding | undefined

export function pdfBinding(): LoadedPdfBinding {
  const native =
    process.env.KILN_PDF_BACKEND === 'wasm' ? null : loadNativeBuild<PdfBinding>('pdf-node', 'pdf')
  loaded ??= selectPdfBinding(native, wasmLoaderPath)
  return loaded
}

const coreCodes: ReadonlySet<string> = new Set(['invalid_pdf', 'unsupported_format', 'limit_exceeded'])

function toDomainError(failure: PdfFailure): DomainError {
  const code: ErrorCode = coreCodes.has(failure.code) ? (failure.code as ErrorCode) : 'invalid_pdf'
  return new DomainError(code, failure.message, { hint: failure.hint })
}

export async function countPdfPages(bytes: Buffer): Promise<number> {
  const outcome = await pdfBinding().binding.countPages(bytes)
  if (outcome.failure || outcome.pageCount === undefined)
    throw toDomainError(outcome.failure ?? unknownFailure)
  return outcome.pageCount
}

export interface PdfTextRequest {
  firstPage: number
  lastPage?: number
  mode: 'plain' | 'layout'
  /** Also each page's lines with their geometry (plain mode's text), for Markdown. */
  lines?: boolean
}

/** Text of the requested pages; the range is clamped to the document by the core. */
export async function extractPdfText(bytes: Buffer, request: PdfTextRequest): Promise<PdfExtraction> {
  const outcome = await pdfBinding().binding.extractText(bytes, request)
  if (outcome.failure || !outcome.extraction) throw toDomainError(outcome.failure ?? unknownFailure)
  return outcome.extraction
}

/** One page (1-based) as 8-bit grey PGM for OCR, at `dpi` or less when the page is very large. */
export async function renderPdfPage(bytes: Buffer, pageNumber: number, dpi: number): Promise<RenderedPage> {
  const outcome = await pdfBinding().binding.renderPage(bytes, pageNumber, dpi)
  if (outcome.failure || !outcome.page) throw toDomainError(outcome.failure ?? unknownFailure)
  return outcome.page
}

/** The answer to a file that aborted the WASM build, as the native build answers a panic. */
const brokenReader: PdfFailure = {
  code: 'invalid_pdf',
  message: 'The PDF could not be read: its structure broke the reader.',
  hint: 'The file is likely damaged; re-export it (for example print to PDF) and try again.',
}

/** The answer to a page whose drawing ended the renderer's process. */
const stoppedRenderer: PdfFailure = {
  code: 'invalid_pdf',
  message: 'The page could not be rendered: drawing it stopped the renderer.',
  hint: 'The file is likely damaged or built to break readers; re-export it (for example print to PDF) and try again.',
}

/** The answer to a page the renderer was still drawing after `ms`. */
function renderOverrun(ms: number): PdfFailure {
  return {
    code: 'invalid_pdf',
    message: `The page was not rendered: drawing it took longer than ${ms / 1000} s.`,
    hint: 'The page is built to keep a renderer busy, or far larger than a page; re-export it (for example print to PDF) and try again.',
  }
}

const unknownFailure: PdfFailure = {
  code: 'invalid_pdf',
  message: 'The PDF core returned no result.',
  hint: 'Retry; if it fails again the file is likely damaged.',
}
