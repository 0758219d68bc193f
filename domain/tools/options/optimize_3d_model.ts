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
})
export type OptimizeOptions = z.infer<typeof optimizeOptions>
