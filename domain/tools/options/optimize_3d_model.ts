import { z } from 'zod'

export const optimizeOptions = z.strictObject({
  compress: z.boolean().default(true).describe('Apply EXT_meshopt_compression to vertex and index data.'),
  quantize: z.boolean().default(true).describe('Quantize attributes with KHR_mesh_quantization.'),
  simplify_ratio: z.number().gt(0).max(1).default(1).describe('Also simplify to this fraction of triangles (1 = off).'),
})
export type OptimizeOptions = z.infer<typeof optimizeOptions>
