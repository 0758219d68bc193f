// Finishing a generated model: grounded at unit size (ground-glb.ts), then through the mesh core:
// welded with identical vertices merged and degenerate faces dropped, loose debris removed (pieces
// under DEBRIS_FRACTION of the surface area, the specks generators leave floating around a model),
// a compressed web copy (KHR_mesh_quantization + EXT_meshopt_compression) and a preview image.
// Without the mesh core on this machine the model is still grounded and delivered, and a note says
// what was left out.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadNativeAddon } from '../../native/load.ts'
import { coreOptions, type MeshTool } from '../../native/mesh.ts'
import { groundAtUnitSize } from './ground-glb.ts'

/** The mesh-node binding's generic tool entry point (native/mesh-node/src/lib.rs). */
interface MeshAddon {
  runTool?(
    tool: string,
    input: Buffer,
    name: string,
    extension: string,
    optionsJson: string,
    resourceDir?: string | null,
  ): Promise<MeshOutcome>
}

interface MeshOutcome {
  summaryJson?: string | null
  files: { name: string; data: Buffer }[]
  error?: { code: string; message: string } | null
}

/** Loose pieces under 0.2% of the model's surface area are debris, not parts of the object. */
const DEBRIS_FRACTION = 0.002

export interface FinishedModel {
  files: string[]
  notes: string[]
  scale: number | null
}

async function runMeshTool(
  addon: MeshAddon,
  tool: MeshTool,
  glb: Uint8Array,
  options: Record<string, unknown>,
) {
  const outcome = await addon.runTool!(
    tool,
    Buffer.from(glb.buffer, glb.byteOffset, glb.byteLength),
    'model.glb',
    'glb',
    JSON.stringify(coreOptions(tool, options)),
  )
  if (outcome.error) throw new Error(`${tool}: ${outcome.error.message}`)
  return {
    files: outcome.files,
    summary: JSON.parse(outcome.summaryJson ?? '{}') as {
      debris_removed?: { pieces: number; faces: number }
    },
  }
}

export async function finishModel(generated: Uint8Array, outDir: string): Promise<FinishedModel> {
  const notes: string[] = []
  const grounded = groundAtUnitSize(generated)
  if (!grounded)
    notes.push('The model has no measurable geometry bounds; it was left at its original size and position.')
  let model = grounded?.glb ?? generated
  const files = ['model.glb']

  const addon = loadNativeAddon<MeshAddon>('mesh-node', 'mesh')
  if (typeof addon?.runTool !== 'function') {
    notes.push(
      'The mesh core is not available on this server: the model was not welded or cleaned, and no web copy or preview was made.',
    )
    await writeFile(join(outDir, 'model.glb'), model)
    return { files, notes, scale: grounded?.scale ?? null }
  }
  // Welding and cleaning without quantization or compression keeps the main file lossless and widely readable.
  const cleaned = await runMeshTool(addon, 'optimize', model, {
    quantize: false,
    compress: false,
    remove_debris: DEBRIS_FRACTION,
  })
  const [welded] = cleaned.files
  if (welded) model = welded.data
  const debris = cleaned.summary.debris_removed
  if (debris && debris.pieces > 0)
    notes.push(
      `Removed ${debris.pieces} loose piece(s) of debris (${debris.faces} faces, each under ${DEBRIS_FRACTION * 100}% of the surface area).`,
    )
  await writeFile(join(outDir, 'model.glb'), model)
  const [web] = (await runMeshTool(addon, 'optimize', model, { quantize: true, compress: true })).files
  if (web) {
    await writeFile(join(outDir, 'model.web.glb'), web.data)
    files.push('model.web.glb')
  }
  const preview = (await runMeshTool(addon, 'inspect', model, {})).files.find((f) => f.name === 'preview.png')
  if (preview) {
    await writeFile(join(outDir, 'preview.png'), preview.data)
    files.push('preview.png')
  }
  return { files, notes, scale: grounded?.scale ?? null }
}
