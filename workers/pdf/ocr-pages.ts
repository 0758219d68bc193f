// Which pages of an extraction OCR reads, and reading them: each page is rendered by the PDF core
// and recognised by Tesseract, one page at a time (the next page renders while the engine reads the
// current one), so memory stays that of one page whatever the length of the scan.

import { isDomainError } from '../../domain/errors.ts'
import type { PdfPage } from '../../native/pdf.ts'
import { renderPdfPage } from '../../native/pdf.ts'
import { type OcrPage, recognise, stoppedError } from './tesseract.ts'

export type OcrMode = 'auto' | 'off' | 'force'

/** The resolution Tesseract is trained for (text of 10–12 pt gives glyphs of about 30–40 px). */
export const ocrDpi = 300

/** Images without text, or glyphs whose fonts hide their characters: only OCR reads these. */
export function needsOcr(page: Pick<PdfPage, 'imageOnly' | 'unmappedGlyphs' | 'chars'>): boolean {
  return page.imageOnly || page.unmappedGlyphs > page.chars
}

export function pagesForOcr(pages: readonly PdfPage[], mode: OcrMode): number[] {
  if (mode === 'off') return []
  return pages.filter((page) => mode === 'force' || needsOcr(page)).map((page) => page.number)
}

export interface RecognisedPage extends OcrPage {
  dpi: number
  width: number
  height: number
}

export interface OcrRequest {
  bytes: Buffer
  pages: readonly number[]
  languages: readonly string[]
  signal: AbortSignal
  onPage?: (done: number, total: number) => void
  /** A page the renderer could not draw: it keeps its text layer, the others go on. */
  onUnrendered?: (page: number) => void
}

export async function recognisePages({
  bytes,
  pages,
  languages,
  signal,
  onPage,
  onUnrendered,
}: OcrRequest): Promise<Map<number, RecognisedPage>> {
  const results = new Map<number, RecognisedPage>()
  const render = (index: number) => {
    const page = pages[index]
    if (page === undefined) return null
    const rendering = renderPdfPage(bytes, page, ocrDpi)
    // Awaited below; a rejection before then must not count as unhandled.
    rendering.catch(() => {})
    return rendering
  }
  let next = render(0)
  try {
    for (let index = 0; index < pages.length; index++) {
      signal.throwIfAborted()
      const image = await next!.catch((error: unknown) => {
        if (isDomainError(error) && error.code === 'invalid_pdf') return null
        throw error
      })
      next = render(index + 1)
      if (!image) {
        onUnrendered?.(pages[index]!)
        continue
      }
      const recognised = await recognise({ image: image.pgm, languages, dpi: image.dpi, signal })
      results.set(pages[index]!, { ...recognised, dpi: image.dpi, width: image.width, height: image.height })
      onPage?.(index + 1, pages.length)
    }
  } catch (error) {
    // Stopped between two steps: the same clean timeout as when the engine itself was killed.
    if (signal.aborted && !isDomainError(error)) throw stoppedError()
    throw error
  }
  return results
}
