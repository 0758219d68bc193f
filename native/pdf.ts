// Typed entry to the PDF core. It uses the napi-rs addon built for this platform, else the
// wasm32-wasip1-threads build of the same binding (native/build-wasm.ts; also when
// KILN_PDF_BACKEND=wasm; run in a worker thread of its own, wasm-isolated.ts), else fails
// with a message that says how to build one. Core failures arrive as values and leave here as
// DomainErrors with the service's codes.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import { loadNativeAddon } from './load.ts'
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
import { isolatedWasmBinding } from './wasm-isolated.ts'

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

/** Picks the native addon, else the WASM build at `wasmPath`; throws when neither exists. */
export function selectPdfBinding(native: PdfBinding | null, wasmPath: string): LoadedPdfBinding {
  if (native) return { binding: native, kind: 'native' }
  if (existsSync(wasmPath))
    return {
      binding: isolatedWasmBinding<PdfBinding>(wasmPath, ['extractText', 'countPages', 'renderPage'], () => ({
        failure: brokenReader,
      })),
      kind: 'wasm',
    }
  throw new Error(
    `The PDF core is not built for ${process.platform}-${process.arch}: run \`node native/build.ts pdf-node\` ` +
      '(native addon) or `node native/build-wasm.ts pdf-node` (WASM fallback).',
  )
}

let loaded: LoadedPdfBinding | undefined

export function pdfBinding(): LoadedPdfBinding {
  const native =
    process.env.KILN_PDF_BACKEND === 'wasm' ? null : loadNativeAddon<PdfBinding>('pdf-node', 'pdf')
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

const unknownFailure: PdfFailure = {
  code: 'invalid_pdf',
  message: 'The PDF core returned no result.',
  hint: 'Retry; if it fails again the file is likely damaged.',
}
