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
      .enum(['plain', 'layout'])
      .default('plain')
      .describe(
        'plain: text in reading order, one line per text line; layout: keep the physical columns and spacing (rows of a page padded with spaces).',
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
