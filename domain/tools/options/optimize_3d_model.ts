import { z } from 'zod'

export const optimizeOptions = z.strictObject({
  compress: z.boolean().default(true).describe('Apply EXT_meshopt_compression to vertex and index data.'),
  quantize: z
    .boolean()
    .default(true)
    .describe(
      'Store positions, normals, UVs and colours as small integers (KHR_mesh_quantization); positions on a 14-bit grid.',
    ),
  simplify_ratio: z
    .number()
    .gt(0)
    .max(1)
    .default(1)
    .describe('Also simplify to this fraction of triangles within 1% of the model size (1 = off).'),
})
export type OptimizeOptions = z.infer<typeof optimizeOptions>
