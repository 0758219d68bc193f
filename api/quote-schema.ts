// The answer of POST /v1/tools/{tool}/quote.
import { z } from 'zod'

export const quote = z
  .object({
    tool: z.string(),
    units: z.number().int().describe('The measured size of the input (faces, pages; 1 for parameter tools).'),
    unit: z.string(),
    extra_units: z
      .number()
      .int()
      .describe('Units priced on top of units (extract_pdf: pages that need OCR); 0 for most tools.'),
    credits: z.number().int().describe('What the job would cost.'),
    balance: z.number().int(),
    available: z.number().int().describe('The balance less what running jobs of unknown price hold.'),
    admitted: z.boolean().describe('Whether a job with this input would be admitted and charged now.'),
    code: z.string().nullable().describe('The error code the job would get now, when not admitted.'),
    message: z.string().nullable(),
  })
  .meta({ id: 'Quote' })
