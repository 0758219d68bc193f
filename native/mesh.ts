// Typed facade over the mesh core. Loads the napi-rs addon (native/mesh-node), or, when that
// binary is missing or KILN_MESH_BACKEND=wasm, the wasm32-wasip1-threads build of the same crate
// (mesh.wasi.cjs beside it, produced by `node native/build-wasm.ts mesh-node`); with neither
// present it throws an error saying how to build one. The core answers with values, never throws:
// failures come back as {code, message, hint} and are raised here as DomainError. The WASM build
// runs in a worker thread of its own (wasm-isolated.ts), so a file that aborts it fails as invalid_mesh.
import { existsSync } from 'node:fs'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { DomainError } from '../domain/errors.ts'
import type { ToolInputFile, ToolRunner } from '../domain/ports/tool-runner.ts'
import { getTool, type ToolId } from '../domain/tools/catalog.ts'
import { simplifyCoreOptions } from '../domain/tools/options/simplify_3d_model.ts'
import { splitCoreOptions } from '../domain/tools/options/split_3d_model.ts'
import { isolatedBinding } from './isolated.ts'
import { loadNativeAddon } from './load.ts'
import { wasmWorkerHost } from './wasm-isolated.ts'

export type MeshTool = 'inspect' | 'simplify' | 'optimize' | 'split'
export type MeshErrorCode = 'invalid_mesh' | 'unsupported_format' | 'limit_exceeded' | 'invalid_options'

export interface MeshFile {
  /** Relative output name; may carry a folder such as `parts/`. */
  name: string
  data: Buffer
}

interface Outcome {
  summaryJson?: string
  files: MeshFile[]
  faces?: number
  error?: { code: MeshErrorCode; message: string; hint: string }
}

export interface MeshAddon {
  measure(
    tool: MeshTool,
    input: Buffer,
    name: string,
    extension: string,
    maxFaces: number,
    resourceDir?: string | null,
  ): Promise<Outcome>
  runTool(
    tool: MeshTool,
    input: Buffer,
    name: string,
    extension: string,
    optionsJson: string,
    resourceDir?: string | null,
  ): Promise<Outcome>
}

export interface MeshInput {
  data: Buffer
  /** Original file name; its extension gives the format. */
  name: string
  extension: string
  /** Folder a .gltf may take separately stored buffers and images from (plain file names only). */
  resourceDir?: string
}

export interface MeshRunResult {
  summary: Record<string, unknown>
  files: MeshFile[]
}

const wasmLoader = join(import.meta.dirname, 'mesh-node', 'mesh.wasi.cjs')

/** One build of the core, or null when it was not produced on this machine. */
export function loadMeshBuild(kind: 'native' | 'wasm'): MeshAddon | null {
  if (kind === 'native') return loadNativeAddon<MeshAddon>('mesh-node', 'mesh')
  return existsSync(wasmLoader)
    ? isolatedBinding<MeshAddon>(wasmWorkerHost(wasmLoader), ['measure', 'runTool'], abortedOutcome)
    : null
}

/** The answer to a file that aborted the WASM build, as the native build answers a panic. */
function abortedOutcome(): Outcome {
  return {
    files: [],
    error: {
      code: 'invalid_mesh',
      message: 'the model could not be processed (it stopped the mesh core)',
      hint: 'The file may be corrupt; re-export it and try again.',
    },
  }
}

let cached: { addon: MeshAddon; backend: 'native' | 'wasm' } | undefined

/** The loaded core and which build it is. */
export function meshBackend(): { addon: MeshAddon; backend: 'native' | 'wasm' } {
  if (cached) return cached
  const forceWasm = process.env.KILN_MESH_BACKEND === 'wasm'
  const native = forceWasm ? null : loadMeshBuild('native')
  const wasm = native ? null : loadMeshBuild('wasm')
  if (native) cached = { addon: native, backend: 'native' }
  else if (wasm) cached = { addon: wasm, backend: 'wasm' }
  if (cached) return cached
  throw new Error(
    'The mesh core is not built: run `node native/build.ts mesh-node` (native addon) or ' +
      '`node native/build-wasm.ts mesh-node` (WASM fallback; needs the wasm32-wasip1-threads Rust target, clang and lld).',
  )
}

function raise(outcome: Outcome): never {
  const e = outcome.error ?? {
    code: 'invalid_mesh' as const,
    message: 'The mesh core returned no result.',
    hint: 'Retry later.',
  }
  throw new DomainError(e.code, e.message, { hint: e.hint })
}

/** Each core tool's catalog entry, and how its parsed options become the complete options the core reads. */
const coreTools: Record<MeshTool, { id: ToolId; complete: (options: never) => object }> = {
  inspect: { id: 'inspect_3d_model', complete: (options: object) => options },
  optimize: { id: 'optimize_3d_model', complete: (options: object) => options },
  simplify: { id: 'simplify_3d_model', complete: simplifyCoreOptions },
  split: { id: 'split_3d_model', complete: splitCoreOptions },
}

/**
 * The options the core reads for `tool`, from the catalog alone: the tool's schema with its
 * defaults applied, defaults that depend on other options resolved, and the tool's face limit.
 * The core refuses unknown fields and wrong types, so nothing here may be left to a Rust default.
 */
export function coreOptions(tool: MeshTool, options: object): Record<string, unknown> {
  const { id, complete } = coreTools[tool]
  const definition = getTool(id)
  const parsed = definition.options.safeParse(options)
  if (!parsed.success)
    throw new DomainError(
      'invalid_options',
      `Invalid options for ${id}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}.`,
      { hint: `See the options schema of ${id} in GET /v1/tools.` },
    )
  return {
    ...complete(parsed.data as never),
    max_faces: definition.limits.maxUnits ?? Number.MAX_SAFE_INTEGER,
  }
}

/**
 * Faces in the model as `tool` counts them (the pricing unit: placed in the scene for tools that
 * bake instances, stored otherwise); DomainError limit_exceeded beyond maxFaces, invalid_mesh etc. for bad files.
 */
export async function measureFaces(tool: MeshTool, input: MeshInput, maxFaces: number): Promise<number> {
  const outcome = await meshBackend().addon.measure(
    tool,
    input.data,
    input.name,
    input.extension,
    maxFaces,
    input.resourceDir ?? null,
  )
  if (outcome.error || outcome.faces === undefined) raise(outcome)
  return outcome.faces
}

/** Runs a mesh tool off the JS thread with the catalog's options (coreOptions); DomainError on a bad or too large model. */
export async function runMeshTool(tool: MeshTool, input: MeshInput, options: object): Promise<MeshRunResult> {
  const outcome = await meshBackend().addon.runTool(
    tool,
    input.data,
    input.name,
    input.extension,
    JSON.stringify(coreOptions(tool, options)),
    input.resourceDir ?? null,
  )
  if (outcome.error || outcome.summaryJson === undefined) raise(outcome)
  return { summary: JSON.parse(outcome.summaryJson) as Record<string, unknown>, files: outcome.files }
}

/**
 * A ToolRunner for one mesh tool: checks the file size, measures faces against the tool limit,
 * runs the core and writes its files (folders included) into the job's outDir. A .gltf must
 * carry its buffers inside: separate files next to an upload are never read.
 */
export function meshToolRunner<Options extends object>(toolId: ToolId, tool: MeshTool): ToolRunner<Options> {
  const { maxUnits, maxBytes } = getTool(toolId).limits
  const load = async (input: ToolInputFile | null): Promise<MeshInput> => {
    if (!input)
      throw new DomainError('unsupported_format', `${toolId} needs a 3D model file as input.`, {
        hint: 'Send a GLB, glTF, OBJ, PLY or STL file.',
      })
    const { size } = await stat(input.path)
    if (maxBytes !== null && size > maxBytes)
      throw new DomainError(
        'limit_exceeded',
        `The file has ${size} bytes; ${toolId} takes up to ${maxBytes}.`,
        {
          hint: 'Simplify or split the model first, or compress its textures.',
        },
      )
    return { data: await readFile(input.path), name: input.name, extension: input.extension }
  }
  const faceLimit = maxUnits ?? Number.MAX_SAFE_INTEGER
  return {
    async measure(input) {
      return { units: await measureFaces(tool, await load(input), faceLimit) }
    },
    async run(input, options, context) {
      const model = await load(input)
      context.progress(0.05, 'model read')
      const result = await runMeshTool(tool, model, options)
      context.signal.throwIfAborted()
      for (const file of result.files) {
        const target = resolve(context.outDir, file.name)
        if (!target.startsWith(resolve(context.outDir) + sep))
          throw new Error(`output name escapes outDir: ${file.name}`)
        await mkdir(dirname(target), { recursive: true })
        await writeFile(target, file.data)
      }
      context.progress(1, 'done')
      return { summary: result.summary }
    },
  }
}
