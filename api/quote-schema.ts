// The answer of POST /v1/tools/{tool}/quote.
import { z } from 'zod'

export const quote = z
  .object({
    tool: z.string(),
    units: z.number().int().describe('The measured size of the input (faces, pages; 1 for parameter tools).'),
    unit: z.string(),
    credits: z.number().int().describe('What the job would cost.'),
    balance: z.number().int(),
    available: z.number().int().describe('The balance less what running jobs of unknown price hold.'),
    admitted: z.boolean().describe('Whether a job with this input would be admitted and charged now.'),
    code: z.string().nullable().describe('The error code the job would get now, when not admitted.'),
    message: z.string().nullable(),
  })
  .meta({ id: 'Quote' })
