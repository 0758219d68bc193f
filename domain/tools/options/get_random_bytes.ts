import { z } from 'zod'

export const randomBytesOptions = z.strictObject({
  length: z.int().min(1).max(64).default(32).describe('How many bytes (1 to 64).'),
  encoding: z.enum(['hex', 'base64']).default('hex').describe('How the bytes are written in the result.'),
})
export type RandomBytesOptions = z.infer<typeof randomBytesOptions>
