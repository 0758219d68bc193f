import { z } from 'zod'

export const simplifyOptions = z
  .strictObject({
    target_ratio: z.number().gt(0).max(1).optional().describe('Fraction of faces to keep, e.g. 0.25.'),
    target_faces: z.int().min(4).optional().describe('Number of faces to aim for (instead of target_ratio).'),
    max_error: z
      .number()
      .min(0)
      .max(1)
      .default(0.01)
      .describe('Largest allowed deviation, as a fraction of the model size; simplification stops there.'),
    lock_border: z.boolean().default(true).describe('Keep open borders in place.'),
    format: z.enum(['same', 'glb', 'obj', 'ply']).default('same').describe('Output format; "same" keeps the input format.'),
  })
  .refine((o) => !(o.target_ratio !== undefined && o.target_faces !== undefined), {
    message: 'give target_ratio or target_faces, not both',
  })
export type SimplifyOptions = z.infer<typeof simplifyOptions>
