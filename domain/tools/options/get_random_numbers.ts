import { z } from 'zod'

export const randomNumbersOptions = z
  .strictObject({
    count: z.int().min(1).max(1000).default(1).describe('How many numbers (1 to 1,000).'),
    type: z
      .enum(['integer', 'real'])
      .default('integer')
      .describe('Whole numbers, or reals with 53 random bits.'),
    min: z.number().default(0).describe('Smallest value (inclusive).'),
    max: z.number().default(100).describe('Largest value (inclusive).'),
    unique: z.boolean().default(false).describe('No value repeats (integers only).'),
  })
  .refine((o) => o.min <= o.max, { message: 'min must not exceed max', path: ['min'] })
  .refine((o) => o.type === 'real' || (Number.isSafeInteger(o.min) && Number.isSafeInteger(o.max)), {
    message: 'integer ranges need whole min and max within ±2^53',
    path: ['min'],
  })
  .refine((o) => !o.unique || o.type === 'integer', { message: 'unique is for integers', path: ['unique'] })
  .refine((o) => !o.unique || o.max - o.min + 1 >= o.count, {
    message: 'the range holds fewer distinct integers than count',
    path: ['count'],
  })
export type RandomNumbersOptions = z.infer<typeof randomNumbersOptions>
