import { z } from 'zod'

export const extractPdfOptions = z
  .strictObject({
    first_page: z.int().min(1).default(1).describe('First page to extract (1-based).'),
    last_page: z
      .int()
      .min(1)
      .optional()
      .describe(
        'Last page to extract; defaults to the last page. A value past the end of the document is clamped to it, with a note.',
      ),
    mode: z
      .enum(['plain', 'layout', 'markdown'])
      .default('plain')
      .describe(
        'plain: text in reading order, one line per text line; layout: keep the physical columns and spacing (rows of a page padded with spaces); markdown: <name>.md with headings (from font size and weight), paragraphs and lists joined across lines and page breaks with hyphenation repaired, columns read in order, tables as GFM tables, figure and table captions as their own italic lines, footnotes as GFM footnotes ([^1]) right after the paragraph that refers to them, running headers, footers and page numbers left out (and listed per page in pages.json).',
      ),
    ocr: z
      .enum(['auto', 'off', 'force'])
      .default('auto')
      .describe(
        'OCR (Tesseract) for pages without a usable text layer: auto recognises only the pages that need it (scanned or image-only pages, glyphs without Unicode mapping); off never; force recognises every page, replacing its text layer. OCR pages are priced as their own unit.',
      ),
    languages: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z][A-Za-z0-9_]{1,31}$/, 'a Tesseract language code such as eng, deu, chi_sim'),
      )
      .min(1)
      .max(5)
      .default(['eng'])
      .describe(
        'Tesseract language codes used together for OCR, e.g. ["eng", "deu"]; each must be installed on the worker (eng always is).',
      ),
  })
  .refine((o) => o.last_page === undefined || o.last_page >= o.first_page, {
    message: 'last_page must be at least first_page',
    path: ['last_page'],
  })
  .describe(
    'At most 500 pages are extracted per job: for a longer document, choose a range with first_page and last_page.',
  )
export type ExtractPdfOptions = z.infer<typeof extractPdfOptions>
