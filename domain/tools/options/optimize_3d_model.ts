import { z } from 'zod'
import { animationError } from './animation-error.ts'

/** Largest texture side accepted (and re-encoded): 8192 x 8192 is the core's per-image pixel budget. */
export const maxTextureSize = 8192

export const optimizeOptions = z.strictObject({
  compress: z.boolean().default(true).describe('Apply EXT_meshopt_compression to vertex and index data.'),
  quantize: z
    .boolean()
    .default(true)
    .describe(
      'Store positions, normals, UVs and colours as small integers (KHR_mesh_quantization), as gltfpack does: positions on a grid of position_bits, normals and tangents as 8-bit octahedral directions, UVs in at least 12 bits per texture repeat, colours in 8 bits.',
    ),
  position_bits: z
    .number()
    .int()
    .min(10)
    .max(16)
    .default(14)
    .describe(
      "Position precision when quantize is true: 2^position_bits - 1 steps across the largest side of the box holding every mesh as stored (merged meshes in world space, shared, skinned and animated ones in their own), so each vertex moves by at most half a step per axis. 14 (the default, gltfpack's -vp 14) is 1/16383 of the model, below a pixel at full-screen size; 16 is 4x finer and larger, 12 is 4x coarser and smaller. A mesh always keeps at least 1023 steps across itself.",
    ),
  animation_error: animationError(
    'With quantize, the kept keys are also stored coarser within it. null (the default) holds animation to half a step of the position grid, the error the geometry itself is stored with (1/32766 of the scene at position_bits 14); larger values make animation-heavy files smaller.',
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
  textures: z
    .enum(['keep', 'webp', 'ktx2'])
    .default('keep')
    .describe(
      'Re-encode PNG and JPEG textures: keep (as they are), webp (EXT_texture_webp, lossy, smallest download; the quality is chosen per texture) or ktx2 (KHR_texture_basisu: Basis Universal ETC1S for colour, its quality chosen per texture, UASTC for normal and data maps, with mipmaps; stays compressed in GPU memory). Converted textures carry no PNG fallback, so viewers must support the extension. One job encodes up to 64 megapixels as webp and 16 as ktx2 (a 4096 x 4096 texture is 16), counted after max_texture_size; images up to 8192 x 8192.',
    ),
  max_texture_size: z
    .number()
    .int()
    .min(1)
    .max(maxTextureSize)
    .nullable()
    .default(null)
    .describe(
      'Scale textures down so the longest side is at most this many pixels (power-of-two textures stay power-of-two); null keeps their size.',
    ),
  keep_nodes: z
    .boolean()
    .default(false)
    .describe(
      'Keep the node tree, node names, every mesh and every material as they are. By default (false), materials identical but for their names become one, and meshes of nodes that never move (not animated, skinned or placed more than once) are merged into one world-space mesh with one part per material and vertex layout, as gltfpack does: fewer draw calls and a smaller file that looks the same. Set it when an application finds or moves parts by node name.',
    ),
  instancing: z
    .boolean()
    .default(false)
    .describe(
      "Draw a mesh that several static nodes place (no animation, skin, morph weights or children on them; not mirrored) through one node with EXT_mesh_gpu_instancing: every placement becomes a translation, rotation and scale in that node's instance accessors instead of a node of its own. Far less JSON and one draw call per mesh, but the extension is required (there is no fallback), so only viewers that support it can open the file, and the placements' nodes and names are gone. Off by default, as in gltfpack (-mi); keep_nodes: true turns it off.",
    ),
})
export type OptimizeOptions = z.infer<typeof optimizeOptions>
