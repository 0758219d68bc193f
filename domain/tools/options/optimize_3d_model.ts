import { z } from 'zod'

export const optimizeOptions = z.strictObject({
  compress: z.boolean().default(true).describe('Apply EXT_meshopt_compression to vertex and index data.'),
  quantize: z
    .boolean()
    .default(true)
    .describe(
      'Store positions, normals, UVs and colours as small integers (KHR_mesh_quantization); positions on a grid of 1/24575 of the scene size.',
    ),
  simplify_ratio: z
    .number()
    .gt(0)
    .max(1)
    .default(1)
    .describe('Also simplify to this fraction of triangles within 1% of the model size (1 = off).'),
  remove_debris: z
    .number()
    .min(0)
    .max(0.5)
    .default(0)
    .describe(
      "Drop loose pieces (parts not connected to the rest of their mesh) whose surface area is below this fraction of the mesh's total, e.g. 0.002 for specks left by scanners or generators; the largest piece always stays (0 = off).",
    ),
  keep_nodes: z
    .boolean()
    .default(false)
    .describe(
      'Keep the node tree, node names and every mesh as they are. By default (false), meshes of nodes that never move (not animated, skinned or placed more than once) are merged into one world-space mesh with one part per material and vertex layout, as gltfpack does: fewer draw calls and a smaller file that looks the same. Set it when an application finds or moves parts by node name.',
    ),
})
export type OptimizeOptions = z.infer<typeof optimizeOptions>
