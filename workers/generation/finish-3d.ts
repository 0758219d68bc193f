// Finishing a generated model: grounded at unit size (ground-glb.ts), then through the mesh core:
// welded with identical vertices merged and degenerate faces dropped, a compressed web copy
// (KHR_mesh_quantization + EXT_meshopt_compression) and a preview image. Without the mesh core on
// this machine the model is still grounded and delivered, and a note says what was left out.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadNativeAddon } from '../../native/load.ts'
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

export interface FinishedModel {
  files: string[]
  notes: string[]
  scale: number | null
}

async function runMeshTool(
  addon: MeshAddon,
  tool: string,
  glb: Uint8Array,
  options: Record<string, unknown>,
) {
  const outcome = await addon.runTool!(
    tool,
    Buffer.from(glb.buffer, glb.byteOffset, glb.byteLength),
    'model.glb',
    'glb',
    JSON.stringify(options),
  )
  if (outcome.error) throw new Error(`${tool}: ${outcome.error.message}`)
  return outcome.files
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
  // Welding without quantization or compression keeps the main file lossless and widely readable.
  const [welded] = await runMeshTool(addon, 'optimize', model, { quantize: false, compress: false })
  if (welded) model = welded.data
  await writeFile(join(outDir, 'model.glb'), model)
  const [web] = await runMeshTool(addon, 'optimize', model, { quantize: true, compress: true })
  if (web) {
    await writeFile(join(outDir, 'model.web.glb'), web.data)
    files.push('model.web.glb')
  }
  const preview = (await runMeshTool(addon, 'inspect', model, {})).find((f) => f.name === 'preview.png')
  if (preview) {
    await writeFile(join(outDir, 'preview.png'), preview.data)
    files.push('preview.png')
  }
  notes.push('Loose debris was not removed: the mesh core offers no component filter yet.')
  return { files, notes, scale: grounded?.scale ?? null }
}
