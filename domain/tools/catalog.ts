// The ten tools: what they take, what they cost, their limits and how an agent should call them.
// REST (GET /v1/tools), MCP and the workers all read this one catalog.
import type { z } from 'zod'
import { create3dModelOptions } from './options/create_3d_model.ts'
import { create3dModelFromImageOptions } from './options/create_3d_model_from_image.ts'
import { createImageOptions } from './options/create_image.ts'
import { extractPdfOptions } from './options/extract_pdf.ts'
import { randomBytesOptions } from './options/get_random_bytes.ts'
import { randomNumbersOptions } from './options/get_random_numbers.ts'
import { inspectOptions } from './options/inspect_3d_model.ts'
import { optimizeOptions } from './options/optimize_3d_model.ts'
import { simplifyOptions } from './options/simplify_3d_model.ts'
import { splitOptions } from './options/split_3d_model.ts'
import type { Pricing } from './pricing.ts'

export const toolIds = [
  'create_3d_model',
  'create_image',
  'create_3d_model_from_image',
  'optimize_3d_model',
  'simplify_3d_model',
  'split_3d_model',
  'inspect_3d_model',
  'extract_pdf',
  'get_random_numbers',
  'get_random_bytes',
] as const
export type ToolId = (typeof toolIds)[number]

export type InputSource = 'upload' | 'url' | 'body' | 'job_file'
export type Toolset = '3d' | 'image' | 'pdf' | 'random'

export interface ToolLimits {
  /** Largest input in measured units (faces or pages); null when the tool takes no file. */
  maxUnits: number | null
  maxBytes: number | null
  /** Rolling 24 h abuse cap once the account has bought credits. */
  jobsPerDay: number
  /** Rolling 24 h cap until the first purchase. */
  jobsPerDayBeforePurchase: number
  /** Wall-clock limit of one run. */
  timeoutMs: number
  /** Memory limit of one run's worker process. */
  memoryMb: number
  /** How long outputs are served when shorter than the service default (secret outputs). */
  retentionMs?: number
}

export interface ToolDefinition {
  id: ToolId
  title: string
  summary: string
  description: string
  toolset: Toolset
  input: { kind: 'file' | 'parameters'; sources: InputSource[]; extensions: string[] }
  options: z.ZodType
  limits: ToolLimits
  pricing: Pricing
  idempotencyRequired: boolean
  /** Generation tools run at a paid upstream provider and count against the daily capacity. */
  generation: boolean
  readOnly: boolean
}

const MB = 1024 * 1024
const meshExtensions = ['glb', 'gltf', 'obj', 'ply', 'stl']
const fileSources: InputSource[] = ['upload', 'url', 'body']
const retryNote =
  'Pass an idempotency_key (any unique string) and reuse the same key when you retry after a network error: the first job is returned instead of starting and charging a new one.'
const followNote =
  'The call starts an asynchronous job; poll it until status is succeeded or failed, then read result.files.'

const standardLimits = { jobsPerDay: 500, jobsPerDayBeforePurchase: 100, timeoutMs: 120_000, memoryMb: 2048 }
const generationLimits = { jobsPerDay: 20, jobsPerDayBeforePurchase: 3, timeoutMs: 600_000, memoryMb: 1024 }

const definitions: ToolDefinition[] = [
  {
    id: 'create_3d_model',
    title: 'Create a 3D model from text',
    summary: 'Generates a textured 3D model (GLB) from a written description.',
    description: `Generate a 3D model from a text description. Options: description (required, up to 4,000 characters), seed. Output: a welded, cleaned GLB standing on the ground at unit size, a compressed web copy and a preview.png. ${followNote} ${retryNote}`,
    toolset: '3d',
    input: { kind: 'parameters', sources: [], extensions: [] },
    options: create3dModelOptions,
    limits: { maxUnits: null, maxBytes: null, ...generationLimits },
    pricing: { kind: 'per', per: 1, credits: 60, description: '60 credits per model.' },
    idempotencyRequired: true,
    generation: true,
    readOnly: false,
  },
  {
    id: 'create_image',
    title: 'Create an image',
    summary: 'Generates an image (PNG) from a written prompt.',
    description: `Generate an image from a text prompt. Options: prompt (required, up to 4,000 characters), transparent_background, seed, size. Output: image.png. The image can feed create_3d_model_from_image as job_file {job_id, name}. ${followNote} ${retryNote}`,
    toolset: 'image',
    input: { kind: 'parameters', sources: [], extensions: [] },
    options: createImageOptions,
    limits: { maxUnits: null, maxBytes: null, ...generationLimits },
    pricing: { kind: 'per', per: 1, credits: 8, description: '8 credits per image.' },
    idempotencyRequired: true,
    generation: true,
    readOnly: false,
  },
  {
    id: 'create_3d_model_from_image',
    title: 'Create a 3D model from an image',
    summary: 'Turns a picture of an object into a textured 3D model (GLB).',
    description: `Generate a 3D model from one image of an object (PNG, JPEG or WebP, up to 20 MB and 25 megapixels). Give the image as upload_id, a public https url, or job_file {job_id, name} naming an output of an earlier job (for example create_image's image.png). ${followNote} ${retryNote}`,
    toolset: '3d',
    input: {
      kind: 'file',
      sources: [...fileSources, 'job_file'],
      extensions: ['png', 'jpg', 'jpeg', 'webp'],
    },
    options: create3dModelFromImageOptions,
    limits: { maxUnits: null, maxBytes: 20 * MB, ...generationLimits },
    pricing: { kind: 'per', per: 1, credits: 50, description: '50 credits per model.' },
    idempotencyRequired: true,
    generation: true,
    readOnly: false,
  },
  {
    id: 'optimize_3d_model',
    title: 'Optimize a 3D model for the web',
    summary:
      'Makes a model smaller and faster to draw: welding, reordering, quantization and meshopt compression.',
    description: `Optimize a 3D model (GLB or glTF, Draco-compressed ones included; OBJ, PLY or STL; up to 50 MB and 2,000,000 triangles) into a compact GLB with KHR_mesh_quantization and EXT_meshopt_compression (never Draco: Draco input is decoded). Textures can be re-encoded as WebP or KTX2 (Basis Universal) and scaled down (options textures, max_texture_size). Meshes of nodes that never move are merged into one world-space mesh per material unless keep_nodes is true; animated and skinned nodes, and meshes placed by several nodes, keep theirs; with instancing true, a mesh placed by several static nodes is drawn through one EXT_mesh_gpu_instancing node instead (the extension is then required). Primitives of a mesh that share a material become one; tangents go where no normal map or anisotropy uses them; cameras, punctual lights (KHR_lights_punctual), material variants (KHR_materials_variants), point and line primitives and GPU instances of the input are kept, and the notes name any extension that is not; a file that requires an extension the service does not read fails with unsupported_format. Animations keep every motion within the error the quantized geometry already has (half a step of its position grid): keys the curve does not need are dropped and the rest stored no finer than that. The result reports sizes and counts before and after, and bytes per texture before and after. The model can come as upload_id, url, or job_file from an earlier job. ${followNote} ${retryNote}`,
    toolset: '3d',
    input: { kind: 'file', sources: [...fileSources, 'job_file'], extensions: meshExtensions },
    options: optimizeOptions,
    limits: {
      maxUnits: 2_000_000,
      maxBytes: 50 * MB,
      ...standardLimits,
      jobsPerDay: 20,
      jobsPerDayBeforePurchase: 3,
    },
    pricing: {
      kind: 'tiers',
      unit: 'faces',
      tiers: [
        { upTo: 100_000, credits: 2 },
        { upTo: 500_000, credits: 5 },
        { upTo: 2_000_000, credits: 15 },
      ],
      description: '2 credits up to 100,000 triangles, 5 up to 500,000, 15 up to 2,000,000.',
    },
    idempotencyRequired: true,
    generation: false,
    readOnly: false,
  },
  {
    id: 'simplify_3d_model',
    title: 'Simplify a 3D model',
    summary: 'Reduces the face count of a model while keeping its shape, normals, UVs and borders.',
    description: `Simplify a 3D model (GLB or glTF, Draco-compressed ones included; OBJ, PLY or STL; up to 1,000,000 faces) to target_ratio or target_faces, never deviating more than max_error (a fraction of the model size; a skinned mesh is held to it at rest and at 8 moments of the animations that move it). Vertices inside a surface may move to where the simplified surface lies nearer the input; border, seam and skinned vertices stay where they were. Static meshes, and primitives of a mesh that share a material, merge first as in optimize_3d_model unless keep_nodes is true; cameras, punctual lights, material variants, point and line primitives (not simplified) and GPU instances are kept in glTF output. The output keeps the input format unless format is given; the result reports faces in and out and the error reached (the largest distance measured from an input vertex to the output surface, over the model size). ${followNote}`,
    toolset: '3d',
    input: { kind: 'file', sources: fileSources, extensions: meshExtensions },
    options: simplifyOptions,
    limits: { maxUnits: 1_000_000, maxBytes: 50 * MB, ...standardLimits },
    pricing: {
      kind: 'tiers',
      unit: 'faces',
      tiers: [
        { upTo: 100_000, credits: 1 },
        { upTo: 1_000_000, credits: 4 },
      ],
      description: '1 credit up to 100,000 faces, 4 up to 1,000,000.',
    },
    idempotencyRequired: false,
    generation: false,
    readOnly: false,
  },
  {
    id: 'split_3d_model',
    title: 'Split a 3D model into parts',
    summary: 'Cuts a model into its loose pieces and meaningful parts, one file per part plus a zip.',
    description: `Split a 3D model (GLB or glTF, Draco-compressed ones included; OBJ, PLY or STL; up to 200,000 faces) into parts: loose pieces always, and with segmented=true also the meaningful parts of one connected mesh (a handle, a leg). Faces are counted as placed in the scene: a mesh used by three nodes counts three times, in the limit, the price, input_faces and exported_faces alike. A model whose faces are all degenerate fails with invalid_mesh. Options: detail, max_parts, min_part_faces, min_part_area, format, preprocess, segmented, density. Output: one file per part and <model>_parts.zip with all of them. ${followNote}`,
    toolset: '3d',
    input: { kind: 'file', sources: fileSources, extensions: meshExtensions },
    options: splitOptions,
    limits: { maxUnits: 200_000, maxBytes: 50 * MB, ...standardLimits },
    pricing: {
      kind: 'tiers',
      unit: 'faces',
      tiers: [
        { upTo: 50_000, credits: 2 },
        { upTo: 200_000, credits: 5 },
      ],
      description: '2 credits up to 50,000 faces, 5 up to 200,000.',
    },
    idempotencyRequired: false,
    generation: false,
    readOnly: false,
  },
  {
    id: 'inspect_3d_model',
    title: 'Inspect a 3D model',
    summary:
      'Reports what a model contains: scenes, meshes, materials, counts, bounds and defects, with a preview.',
    description: `Inspect a 3D model (GLB or glTF, Draco-compressed ones included; OBJ, PLY or STL; up to 200,000 faces as placed in the scene, a mesh used by several nodes counting once per use). Point clouds and line drawings (no triangles) are inspected too. No options. Output: inspection.json (scenes, nodes, meshes with their points and lines, materials and their variants, textures, animations, bounding boxes, non-manifold edges, degenerate faces), summary.txt and preview.png. ${followNote}`,
    toolset: '3d',
    input: { kind: 'file', sources: fileSources, extensions: meshExtensions },
    options: inspectOptions,
    limits: { maxUnits: 200_000, maxBytes: 50 * MB, ...standardLimits },
    pricing: { kind: 'free', description: 'Free.' },
    idempotencyRequired: false,
    generation: false,
    readOnly: true,
  },
  {
    id: 'extract_pdf',
    title: 'Extract text from a PDF',
    summary: 'Extracts the text of a PDF in reading order, as a text file and per-page JSON.',
    description: `Extract the text of a PDF (up to 500 pages and 20 MB), optionally only first_page to last_page, in plain reading order, mode=layout, or mode=markdown (<name>.md instead of the .txt: headings from font size and weight, paragraphs and lists joined across lines and page breaks with hyphenation repaired, columns in reading order, GFM tables joined across page breaks, captions kept as their own lines, footnotes as GFM footnotes after the paragraph that refers to them, running headers, footers and page numbers left out and listed per page in pages.json). Scanned pages and pages whose fonts hide their text are read by OCR (Tesseract): ocr=auto (default) recognises only those pages, ocr=force every page, ocr=off none; languages picks the Tesseract language packs (default ["eng"]). OCR pages are priced on top of the pages. Output: <name>.txt with a separator line between pages, and <name>.pages.json with per-page text, flags (empty, image_only, needs_ocr), the text source (text_layer or ocr) and for OCR pages the words with their confidences. Read text outputs in chunks with the job's file endpoint. ${followNote}`,
    toolset: 'pdf',
    input: { kind: 'file', sources: fileSources, extensions: ['pdf'] },
    options: extractPdfOptions,
    // OCR takes a second or two per page on one core: the time limit leaves room for a long scan.
    limits: { maxUnits: 500, maxBytes: 20 * MB, ...standardLimits, timeoutMs: 900_000 },
    pricing: {
      kind: 'per',
      unit: 'pages',
      per: 10,
      credits: 1,
      extra: { unit: 'ocr_pages', per: 2, credits: 1 },
      description: '1 credit for every 10 pages started, plus 1 credit for every 2 OCR pages started.',
    },
    idempotencyRequired: false,
    generation: false,
    readOnly: true,
  },
  {
    id: 'get_random_numbers',
    title: 'Get random numbers',
    summary: 'Draws 1 to 1,000 unbiased random numbers from a cryptographically secure source.',
    description: `Draw random numbers from a CSPRNG: count (1 to 1,000), type integer or real, inclusive range min..max, unique for integers without repeats. Integers are unbiased (rejection sampling, no modulo bias). The numbers are in result.numbers. ${retryNote}`,
    toolset: 'random',
    input: { kind: 'parameters', sources: [], extensions: [] },
    options: randomNumbersOptions,
    limits: { maxUnits: null, maxBytes: null, ...standardLimits, timeoutMs: 10_000, memoryMb: 256 },
    pricing: { kind: 'per', per: 1, credits: 1, description: '1 credit per job.' },
    idempotencyRequired: true,
    generation: false,
    readOnly: false,
  },
  {
    id: 'get_random_bytes',
    title: 'Get random bytes',
    summary: 'Returns 1 to 64 bytes from a cryptographically secure source, as hex or base64.',
    description:
      'Return 1 to 64 random bytes (length) from a CSPRNG, hex or base64, with an optional label. The bytes are a secret: they are written to the output file secret/random_bytes.json (read it with the job file endpoint), stored encrypted at rest and purged 5 minutes after the job finishes. Give recipient_public_key (X25519, base64) to have them sealed to you, so the service never keeps them in the clear. Free.',
    toolset: 'random',
    input: { kind: 'parameters', sources: [], extensions: [] },
    options: randomBytesOptions,
    limits: {
      maxUnits: null,
      maxBytes: null,
      ...standardLimits,
      timeoutMs: 10_000,
      memoryMb: 256,
      retentionMs: 5 * 60_000,
    },
    pricing: { kind: 'free', description: 'Free.' },
    idempotencyRequired: false,
    generation: false,
    readOnly: true,
  },
]

export const toolCatalog: ReadonlyMap<ToolId, ToolDefinition> = new Map(
  definitions.map((tool) => [tool.id, tool]),
)
export const toolsets: Toolset[] = ['3d', 'image', 'pdf', 'random']

export const isToolId = (id: string): id is ToolId => toolCatalog.has(id as ToolId)

export function getTool(id: ToolId): ToolDefinition {
  return toolCatalog.get(id)!
}

/** Pricing units of a parameter tool's job: one job is one unit. */
export const parameterJobUnits = 1
