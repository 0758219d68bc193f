import { z } from 'zod'
import { animationError } from './animation-error.ts'

/** The share of faces kept when neither target_ratio nor target_faces is given. */
export const defaultTargetRatio = 0.5

export const simplifyOptions = z
  .strictObject({
    target_ratio: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe(
        `Fraction of faces to keep, e.g. 0.25. When neither target_ratio nor target_faces is given, ${defaultTargetRatio}.`,
      ),
    target_faces: z.int().min(4).optional().describe('Number of faces to aim for, instead of target_ratio.'),
    max_error: z
      .number()
      .min(0)
      .max(1)
      .default(0.01)
      .describe(
        'Largest allowed deviation as a fraction of the model size (0.01 = 1%), measured: every vertex of the input stays within it of the output surface. Simplification stops there even if the target is not reached, and the result says so.',
      ),
    lock_border: z
      .boolean()
      .default(false)
      .describe(
        'Keep open borders (holes, cut edges) in place, e.g. for a piece of a larger surface. By default borders simplify within max_error like the rest; where the parts of one mesh meet, and at UV seams and the normal seams of smooth-shaded surfaces, vertices always stay (a flat-shaded surface, whose every face carries its own normal, simplifies as one surface and stays flat shaded).',
      ),
    format: z
      .enum(['same', 'glb', 'obj', 'ply', 'stl'])
      .default('same')
      .describe(
        'Output format; "same" keeps the input format (glTF becomes GLB, OFF becomes PLY); stl is also accepted.',
      ),
    keep_nodes: z
      .boolean()
      .default(false)
      .describe(
        'Keep the node tree, node names, every mesh and every material as they are. By default (false), materials identical but for their names become one, and meshes of nodes that never move (not animated, skinned or placed more than once) are merged into one world-space mesh with one part per material and vertex layout, as gltfpack does: fewer draw calls and a smaller file that looks the same. Set it when an application finds or moves parts by node name.',
      ),
    animation_error: animationError(
      'null (the default) keeps every animation key as it is, in exact floats; a number lets GLB output drop the keys the motion can do without.',
    ),
  })
  .refine((o) => !(o.target_ratio !== undefined && o.target_faces !== undefined), {
    message: 'give target_ratio or target_faces, not both',
  })
export type SimplifyOptions = z.infer<typeof simplifyOptions>

/** The options the mesh core reads: exactly one of target_ratio and target_faces, every other option given. */
export function simplifyCoreOptions(options: SimplifyOptions) {
  if (options.target_faces !== undefined) return options
  return { ...options, target_ratio: options.target_ratio ?? defaultTargetRatio }
}
