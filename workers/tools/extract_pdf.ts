// extract_pdf: the text of a PDF through the native core, as `<stem>.txt` and `<stem>.pages.json`.
//
// The .txt holds the pages in order, each introduced by a line `--- page N ---`; every page after
// the first is preceded by a form feed (U+000C), so `split('\f')` gives pages and the marker
// line gives their numbers. The .json holds the same text per page with its flags.
//
// OCR (option ocr, see workers/pdf/ocr-pages.ts) replaces the text of the pages it reads; those
// pages are measured before the charge (an extraction of the range tells which pages need it) and
// priced as the tool's extra unit.
//
// The limit of 500 pages counts the pages extracted (the priced units), so a longer document can
// be read in ranges; a last_page past the end is clamped with a note, a first_page past the end
// is refused since nothing would be extracted.
import { readFile, stat, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { DomainError } from '../../domain/errors.ts'
import type { ToolInputFile, ToolRunner } from '../../domain/ports/tool-runner.ts'
import { getTool } from '../../domain/tools/catalog.ts'
import type { ExtractPdfOptions } from '../../domain/tools/options/extract_pdf.ts'
import { countPdfPages, extractPdfText, type PdfPage } from '../../native/pdf.ts'
import { buildMarkdown } from '../pdf/markdown/markdown.ts'
import { ocrLines } from '../pdf/markdown/ocr-lines.ts'
import { needsOcr, pagesForOcr, type RecognisedPage, recognisePages } from '../pdf/ocr-pages.ts'
import { checkLanguages } from '../pdf/tesseract.ts'

const { maxUnits, maxBytes } = getTool('extract_pdf').limits
const maxPages = maxUnits ?? 500
const maxFileBytes = maxBytes ?? 20 * 1024 * 1024

async function readPdf(input: ToolInputFile | null): Promise<Buffer> {
  if (!input)
    throw new DomainError('unsupported_format', 'extract_pdf needs a PDF file as input.', {
      hint: 'Send a PDF document.',
    })
  const { size } = await stat(input.path)
  if (size > maxFileBytes)
    throw new DomainError(
      'limit_exceeded',
      `The PDF is ${size} bytes; extract_pdf takes up to ${maxFileBytes} bytes.`,
      {
        hint: 'Split the PDF into smaller files and extract each.',
      },
    )
  return readFile(input.path)
}

interface PageRange {
  first: number
  last: number
  notes: string[]
}

function pageRange(pageCount: number, options: ExtractPdfOptions): PageRange {
  const first = options.first_page
  if (first > pageCount)
    throw new DomainError(
      'invalid_options',
      `first_page ${first} is past the end of the document, which has ${pageCount} pages.`,
      {
        hint: `Choose first_page between 1 and ${pageCount}.`,
      },
    )
  const requestedLast = options.last_page ?? pageCount
  const last = Math.min(requestedLast, pageCount)
  const notes =
    requestedLast > pageCount
      ? [
          `last_page ${requestedLast} is past the end of the document; extracted up to its last page, ${pageCount}.`,
        ]
      : []
  const pages = last - first + 1
  if (pages > maxPages)
    throw new DomainError(
      'limit_exceeded',
      `${pages} pages were asked for; extract_pdf takes up to ${maxPages} pages per job.`,
      {
        hint: `The document has ${pageCount} pages: extract it in ranges of at most ${maxPages} with first_page and last_page.`,
      },
    )
  return { first, last, notes }
}

/** A file name safe in any file system and URL, kept recognisable. */
export function outputStem(name: string): string {
  const stem = basename(name, extname(name))
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100)
  return stem || 'document'
}

export function textFile(pages: readonly PdfPage[]): string {
  return pages
    .map((page, index) => `${index === 0 ? '' : '\f'}--- page ${page.number} ---\n${page.text}\n`)
    .join('')
}

const countChars = (text: string) => text.replace(/\s+/g, '').length

/** A page's text from OCR in place of its text layer, counted the same way. */
function withOcrText(page: PdfPage, recognised: RecognisedPage | undefined): PdfPage {
  if (!recognised) return page
  const chars = countChars(recognised.text)
  return { ...page, text: recognised.text, chars, empty: chars === 0 }
}

export const runner: ToolRunner<ExtractPdfOptions> = {
  async measure(input, options) {
    const bytes = await readPdf(input)
    const { first, last } = pageRange(await countPdfPages(bytes), options)
    const units = last - first + 1
    if (options.ocr === 'off' || !(await checkLanguages(options.languages))) return { units, extraUnits: 0 }
    if (options.ocr === 'force') return { units, extraUnits: units }
    // Which pages lack a usable text layer is only known from the text itself (fast next to OCR).
    const extraction = await extractPdfText(bytes, { firstPage: first, lastPage: last, mode: 'plain' })
    return { units, extraUnits: pagesForOcr(extraction.pages, 'auto').length }
  },

  async run(input, options, context) {
    const bytes = await readPdf(input)
    context.progress(0.05, 'reading the PDF')
    const range = pageRange(await countPdfPages(bytes), options)
    const engine = options.ocr !== 'off' && (await checkLanguages(options.languages))
    const markdownMode = options.mode === 'markdown'
    const extraction = await extractPdfText(bytes, {
      firstPage: range.first,
      lastPage: range.last,
      mode: markdownMode ? 'plain' : (options.mode as 'plain' | 'layout'),
      lines: markdownMode,
    })
    context.signal.throwIfAborted()
    const ocrPages = pagesForOcr(extraction.pages, engine ? options.ocr : 'off')
    const ocrMissing =
      options.ocr !== 'off' && !engine && pagesForOcr(extraction.pages, options.ocr).length > 0
        ? [
            'OCR is not installed on this worker: pages without a text layer are left empty (needs_ocr), and were not charged as OCR pages.',
          ]
        : []
    if (ocrPages.length > 0) context.progress(0.1, `recognising ${ocrPages.length} pages (OCR)`)
    const unrendered: number[] = []
    const recognised = await recognisePages({
      bytes,
      pages: ocrPages,
      languages: options.languages,
      signal: context.signal,
      onUnrendered: (page) => unrendered.push(page),
      onPage: (done, total) => context.progress(0.1 + (0.8 * done) / total, `OCR: ${done} of ${total} pages`),
    })
    context.progress(0.9, 'writing the text')
    const stem = outputStem(input?.name ?? 'document.pdf')
    const notes = [
      ...range.notes,
      ...extraction.notes,
      ...ocrMissing,
      ...(unrendered.length > 0
        ? [
            `Pages ${unrendered.join(', ')} could not be rendered for OCR and keep their text layer; their OCR was not charged.`,
          ]
        : []),
    ]
    const finalPages = extraction.pages.map((page) => withOcrText(page, recognised.get(page.number)))
    const markdown = markdownMode
      ? buildMarkdown(
          extraction.pages.map((page) => {
            const ocr = recognised.get(page.number)
            return {
              number: page.number,
              lines: ocr ? ocrLines(ocr.words, ocr.dpi, ocr.height) : (page.lines ?? []),
              rules: ocr ? [] : (page.rules ?? []),
            }
          }),
        )
      : null
    const pages = extraction.pages.map((layer, index) => {
      const page = finalPages[index]!
      const ocr = recognised.get(page.number)
      const structure = markdown?.pages[index]
      return {
        page: page.number,
        text: page.text,
        chars: page.chars,
        empty: page.empty,
        image_only: layer.imageOnly,
        unmapped_glyphs: layer.unmappedGlyphs,
        needs_ocr: needsOcr(layer),
        source: ocr ? 'ocr' : 'text_layer',
        ocr: ocr
          ? {
              languages: options.languages,
              dpi: Math.round(ocr.dpi),
              image_size: [ocr.width, ocr.height],
              confidence: ocr.confidence,
              words: ocr.words.map((word) => ({
                text: word.text,
                confidence: word.confidence,
                box: word.box,
                line: word.line,
              })),
            }
          : null,
        ...(structure
          ? {
              // Left out of the Markdown: running headers, footers and page numbers.
              running: structure.running,
              headings: structure.headings,
              tables: structure.tables,
            }
          : {}),
      }
    })
    const document = {
      schema_version: 1,
      source: input?.name ?? null,
      page_count: extraction.pageCount,
      first_page: extraction.firstPage,
      last_page: extraction.lastPage,
      mode: options.mode,
      ocr: options.ocr,
      notes,
      pages,
    }
    if (markdown) await writeFile(join(context.outDir, `${stem}.md`), markdown.markdown)
    else await writeFile(join(context.outDir, `${stem}.txt`), textFile(finalPages))
    await writeFile(join(context.outDir, `${stem}.pages.json`), `${JSON.stringify(document, null, 2)}\n`)
    context.progress(1)
    return {
      summary: {
        pages: extraction.pages.length,
        first_page: extraction.firstPage,
        last_page: extraction.lastPage,
        empty_pages: finalPages.filter((page) => page.chars === 0 || page.text.trim() === '').length,
        chars: finalPages.reduce((sum, page) => sum + page.chars, 0),
        ocr_pages: recognised.size,
        notes,
      },
      // Charged as OCR pages at measurement; their credits go back.
      extraUnitsSkipped: unrendered.length,
    }
  },
}
