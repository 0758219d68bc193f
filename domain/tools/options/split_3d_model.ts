import { z } from 'zod'

/** The most parts one split returns (the schema's ceiling, and max_parts when it is not given). */
export const maxParts = 64

/** Without min_part_area, the detail level decides how small a part may be, as a fraction of the total area. */
export const minPartAreaByDetail = { low: 0.02, medium: 0.005, high: 0.001 } as const

// Exactly the spec's table; no other properties.
export const splitOptions = z.strictObject({
  detail: z
    .enum(['low', 'medium', 'high'])
    .default('medium')
    .describe('How finely to cut: more detail gives more, smaller parts.'),
  max_parts: z
    .int()
    .min(1)
    .max(maxParts)
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

/** The options the mesh core reads: every one given, those whose default depends on others resolved. */
export function splitCoreOptions(options: SplitOptions) {
  const { density, ...rest } = options
  return {
    ...rest,
    max_parts: options.max_parts ?? maxParts,
    min_part_area: options.min_part_area ?? minPartAreaByDetail[options.detail],
    ...(density != null && { density }),
  }
}
