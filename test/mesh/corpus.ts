// Shared test helpers: where the corpus is, a ToolContext on a fresh folder, and the GLB validator.
import { readdirSync } from 'node:fs'
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { validateBytes } from 'gltf-validator'
import type { ToolContext, ToolInputFile, ToolRunner } from '../../domain/ports/tool-runner.ts'
import { corpusDir, corpusMissing, peerReady } from '../support/peers.ts'

export { corpusDir }
export const hasCorpus = peerReady('mesh corpus tests', corpusMissing())

/** Corpus models by path, with the triangles stored in each. */
export const corpusModels: Array<[string, number]> = [
  ['glb/Box.glb', 12],
  ['glb/BoxMeshopt.glb', 12],
  ['glb/BoxTextured.glb', 12],
  ['glb/CesiumMan.glb', 4672],
  ['glb/ShapeCollection.glb', 2390],
  ['glb/SheenCloth.glb', 115200],
  ['gltf/BoxTextured_embedded/BoxTextured.gltf', 12],
  ['obj/spider/spider.obj', 1368],
  ['obj/stanford-bunny.obj', 69451],
  ['obj/teapot.obj', 6320],
  ['ply/bun_zipper.ply', 69451],
  ['ply/cube_binary.ply', 12],
  ['ply/test_pos_color.ply', 224],
  ['stl/Spider_ascii.stl', 1368],
  ['stl/Spider_binary.stl', 1368],
  ['stl/bunny_binary.stl', 69451],
]

export async function inputFile(relative: string): Promise<ToolInputFile> {
  const path = join(corpusDir, relative)
  const name = relative.split('/').pop() ?? relative
  return { path, name, bytes: (await stat(path)).size, extension: extname(name).slice(1).toLowerCase() }
}

export async function context(): Promise<ToolContext & { progressed: number[] }> {
  const outDir = await mkdtemp(join(tmpdir(), 'kiln-mesh-'))
  const progressed: number[] = []
  return {
    outDir,
    progressed,
    progress: (fraction) => progressed.push(fraction),
    signal: new AbortController().signal,
    randomBytes: (size) => new Uint8Array(size),
  }
}

/** Every file below dir, as paths relative to it. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()
}

/** The one GLB a tool wrote into `outDir`. */
export async function onlyGlb(outDir: string): Promise<string> {
  const [glb] = (await listFiles(outDir)).filter((f) => f.endsWith('.glb'))
  if (!glb) throw new Error(`no GLB in ${outDir}`)
  return join(outDir, glb)
}

/** `runner` on `input` into a fresh folder: the summary, and the one GLB it wrote. */
export async function runToGlb<Options>(runner: ToolRunner<Options>, input: ToolInputFile, options: Options) {
  const ctx = await context()
  const { summary } = await runner.run(input, options, ctx)
  return { summary, output: await onlyGlb(ctx.outDir) }
}

/** Validator errors of a GLB (an empty list when it is valid). */
export async function validatorErrors(path: string): Promise<string[]> {
  const report = await validateBytes(new Uint8Array(await readFile(path)))
  return report.issues.messages
    .filter((m: { severity: number }) => m.severity === 0)
    .map(
      (m: { code: string; pointer?: string; message: string }) => `${m.code} ${m.pointer ?? ''} ${m.message}`,
    )
}

export const malformedFiles = hasCorpus
  ? readdirSync(join(corpusDir, 'malformed'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.endsWith('.bin'))
      .map((e) => join(e.parentPath, e.name).slice(corpusDir.length + 1))
  : []

/** The JSON document of a .glb or .gltf file. */
export async function gltfJson(path: string): Promise<Record<string, unknown[] | undefined>> {
  const bytes = await readFile(path)
  if (bytes.subarray(0, 4).toString() !== 'glTF') return JSON.parse(bytes.toString('utf8'))
  const length = bytes.readUInt32LE(12)
  return JSON.parse(bytes.subarray(20, 20 + length).toString('utf8'))
}
