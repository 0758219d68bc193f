// Texture bench: kiln's optimize with textures webp / ktx2 against native gltfpack -tw / -tc (and
// -tc with UASTC for normal and attribute maps, the closest peer to kiln's ktx2 choice) on the same
// inputs: corpus textured models, generated models with 2048 and 4096 textures of smooth noise
// (4096 left out with --quick) and one with 1024 textures of hard-edged content (text, panels). Per texture: bytes and PSNR of the decoded image against its source, both
// measured by `kiln-mesh textures` (one decoder for every output); per model: wall time of the
// whole process and the Khronos validator's error count of the output. Ratios are kiln /
// gltfpack: bytes below 1 means kiln is smaller; dB above 0 means kiln is closer to the source.
// Not a test: times depend on the machine.
//   node bench/mesh/textures.ts [--quick]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { validateBytes } from 'gltf-validator'
import { coreOptions } from '../../native/mesh.ts'
import { sharpTexturePixels } from '../../test/mesh/sharp-textures.ts'
import { texturedGlb } from '../../test/mesh/textures-model.ts'

const root = resolve(import.meta.dirname, '../..')
const corpus = resolve(root, '../shared/corpus')
const gltfpackPath = resolve(root, '../shared/peers/gltfpack')
const kilnMesh = join(root, 'native/target/release/kiln-mesh')
const work = join(root, 'bench/.out/mesh/textures')
const quick = process.argv.includes('--quick')

for (const [path, what] of [
  [kilnMesh, 'kiln-mesh (npm run build:native)'],
  [gltfpackPath, 'native gltfpack (../shared/peers)'],
]) {
  if (!existsSync(path!)) {
    console.error(`missing ${what} at ${path}`)
    process.exit(1)
  }
}

function timed(command: string, args: string[]): number {
  const started = performance.now()
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  return ms
}

interface Quality {
  source_image: number
  format: string
  bytes: number
  source_bytes: number
  size: [number, number]
  psnr: number
}

function quality(source: string, output: string): Quality[] {
  const r = spawnSync(kilnMesh, ['textures', source, output], { encoding: 'utf8', maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`kiln-mesh textures ${output}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

function inputs(): string[] {
  mkdirSync(work, { recursive: true })
  const list = [
    'glb/BoxTextured.glb',
    'gltf/CesiumMilkTruck/CesiumMilkTruck.gltf',
    'glb/CesiumMan.glb',
    'glb/SheenCloth.glb',
  ]
    .map((f) => join(corpus, f))
    .filter(existsSync)
  for (const size of quick ? [2048] : [2048, 4096]) {
    const path = join(work, `generated-${size}.glb`)
    if (!existsSync(path)) writeFileSync(path, texturedGlb(size))
    list.push(path)
  }
  // Hard-edged content (text, panels) that no encoder setting was tuned on.
  const sharp = join(work, 'generated-sharp-1024.glb')
  if (!existsSync(sharp)) writeFileSync(sharp, texturedGlb(1024, sharpTexturePixels(1024)))
  list.push(sharp)
  return list
}

interface Contender {
  format: string
  tool: string
  run: (input: string, outDir: string) => number
}

const kiln = (textures: string) => (input: string, outDir: string) =>
  timed(kilnMesh, ['optimize', input, outDir, JSON.stringify(coreOptions('optimize', { textures }))])
const gltfpack = (flags: string[]) => (input: string, outDir: string) =>
  timed(gltfpackPath, ['-i', input, '-o', join(outDir, 'out.glb'), ...flags])

const contenders: Contender[] = [
  { format: 'webp', tool: 'kiln', run: kiln('webp') },
  { format: 'webp', tool: 'gltfpack -tw', run: gltfpack(['-tw']) },
  { format: 'ktx2', tool: 'kiln', run: kiln('ktx2') },
  { format: 'ktx2', tool: 'gltfpack -tc', run: gltfpack(['-tc']) },
  {
    format: 'ktx2',
    tool: 'gltfpack -tc -tu normal -tu attrib',
    run: gltfpack(['-tc', '-tu', 'normal', '-tu', 'attrib']),
  },
]

interface Row {
  model: string
  format: string
  tool: string
  ms: number
  /** Khronos glTF validator errors of the output (warnings are not counted). */
  errors: number
  textures: Quality[]
}

const rows: Row[] = []
for (const input of inputs()) {
  const model = basename(input).replace(/\.(glb|gltf)$/, '')
  for (const c of contenders) {
    const outDir = join(work, model, `${c.format}-${c.tool.replace(/[^a-z0-9]+/g, '_')}`)
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    const ms = c.run(input, outDir)
    const output = join(outDir, readdirSync(outDir).find((f) => f.endsWith('.glb'))!)
    const report = await validateBytes(new Uint8Array(readFileSync(output)))
    rows.push({
      model,
      format: c.format,
      tool: c.tool,
      ms,
      errors: report.issues.numErrors,
      textures: quality(input, output),
    })
  }
}

const fmt = (n: number, digits = 0) => n.toFixed(digits)
console.log(
  '\nper texture: bytes and PSNR (dB) of the decoded output against the source; ratio = kiln / peer\n',
)
console.log(
  [
    'model',
    'image',
    'size',
    'source B',
    'format',
    'peer',
    'kiln B',
    'kiln dB',
    'peer B',
    'peer dB',
    'B ratio',
    'dB diff',
  ].join('\t'),
)
for (const ours of rows.filter((r) => r.tool === 'kiln')) {
  for (const peer of rows.filter(
    (r) => r.model === ours.model && r.format === ours.format && r.tool !== 'kiln',
  )) {
    for (const t of ours.textures) {
      const p = peer.textures.find((q) => q.source_image === t.source_image)
      if (!p) continue
      console.log(
        [
          ours.model,
          t.source_image,
          t.size.join('x'),
          t.source_bytes,
          ours.format,
          peer.tool,
          t.bytes,
          fmt(t.psnr, 2),
          p.bytes,
          fmt(p.psnr, 2),
          fmt(t.bytes / p.bytes, 2),
          fmt(t.psnr - p.psnr, 2),
        ].join('\t'),
      )
    }
  }
}
console.log('\nper model: total texture bytes and wall time of the whole process (ms)\n')
console.log(['model', 'format', 'tool', 'texture B', 'mean dB', 'ms', 'validator errors'].join('\t'))
for (const r of rows) {
  const bytes = r.textures.reduce((s, t) => s + t.bytes, 0)
  const mean = r.textures.reduce((s, t) => s + t.psnr, 0) / Math.max(1, r.textures.length)
  console.log([r.model, r.format, r.tool, bytes, fmt(mean, 2), fmt(r.ms), r.errors].join('\t'))
}
writeFileSync(join(work, 'results.json'), JSON.stringify(rows, null, 2))
console.log(`\nraw rows: ${join(work, 'results.json')}`)
