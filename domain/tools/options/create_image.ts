import { z } from 'zod'

export const createImageOptions = z.strictObject({
  prompt: z
    .string()
    .min(1)
    .max(4000)
    .describe('What the image shows, in plain words (up to 4,000 characters).'),
  transparent_background: z
    .boolean()
    .default(false)
    .describe('Render the subject on a transparent background (PNG).'),
  seed: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .describe('Seed for a repeatable result where the provider supports it.'),
  size: z
    .enum(['1024x1024', '1536x1024', '1024x1536'])
    .default('1024x1024')
    .describe('Image size in pixels.'),
})
export type CreateImageOptions = z.infer<typeof createImageOptions>
