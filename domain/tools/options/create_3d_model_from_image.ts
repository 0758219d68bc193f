import { z } from 'zod'

export const create3dModelFromImageOptions = z.strictObject({
  seed: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .describe('Seed for a repeatable result where the provider supports it.'),
})
export type Create3dModelFromImageOptions = z.infer<typeof create3dModelFromImageOptions>
