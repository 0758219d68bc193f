import { z } from 'zod'

export const create3dModelOptions = z.strictObject({
  description: z
    .string()
    .min(1)
    .max(4000)
    .describe('The object to model, in plain words (up to 4,000 characters).'),
  seed: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .describe('Seed for a repeatable result where the provider supports it.'),
})
export type Create3dModelOptions = z.infer<typeof create3dModelOptions>
