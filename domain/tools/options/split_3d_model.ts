import { z } from 'zod'

// Exactly the spec's table; no other properties.
export const splitOptions = z.strictObject({
  detail: z
    .enum(['low', 'medium', 'high'])
    .default('medium')
    .describe('How finely to cut: more detail gives more, smaller parts.'),
  max_parts: z
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe('Safety ceiling on the number of parts (1-64), clamped to the plan.'),
  min_part_faces: z
    .int()
    .min(0)
    .default(0)
    .describe('Parts with fewer faces are merged into a neighbour or dropped.'),
  min_part_area: z
    .number()
    .min(0)
    .lt(1)
    .nullable()
    .optional()
    .describe('Parts smaller than this fraction of the total surface area are merged or dropped.'),
  format: z.enum(['glb', 'obj', 'ply']).default('glb').describe('File format of each part.'),
  preprocess: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe('Weld vertices and clean degenerate faces first.'),
  segmented: z
    .boolean()
    .default(true)
    .describe('Also cut one connected mesh into meaningful parts, not only loose pieces.'),
  density: z
    .number()
    .gt(0)
    .nullable()
    .optional()
    .describe('Material density for per-part mass estimates (g/cm³).'),
})
export type SplitOptions = z.infer<typeof splitOptions>
