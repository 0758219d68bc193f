// Texture bench: kiln's optimize with textures webp / ktx2 against native gltfpack -tw / -tc (and
// -tc with UASTC for normal and attribute maps, the closest peer to kiln's ktx2 choice) on the same
// inputs: corpus textured models, generated models with 2048 and 4096 textures of smooth noise
// (4096 left out with --quick), one with 1024 textures of hard-edged content (text, panels) and one
// with 1024 foliage textures whose colour map has an alpha channel (bench/mesh/foliage-textures.ts).
// Per texture: bytes and PSNR of the decoded image against its source, both measured by `kiln-mesh textures` (one decoder for every output); per model: CPU time (perf's
// task-clock: user and system time of every thread, which other work on a shared machine moves
// much less than wall time) and wall time of the whole process, each the best of --rounds runs
// made back to back, and the Khronos validator's error count of the output. Ratios are kiln /
// gltfpack: bytes below 1 means kiln is smaller; dB above 0 means kiln is closer to the source.
// Not a test: times depend on the machine.
//   [KILN_MESH=<kiln-mesh build>] node bench/mesh/textures.ts [--quick] [--rounds=3] [--only=SheenCloth,sharp] [--format=webp]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { validateBytes } from 'gltf-validator'
import { kilnMeshPath } from '../../native/cargo.ts'
import { coreOptions } from '../../native/mesh.ts'
import { sharpTexturePixels } from '../../test/mesh/sharp-textures.ts'
import { texturedGlb } from '../../test/mesh/textures-model.ts'
import { onlyWords } from './flags.ts'
import { foliageTexturePixels } from './foliage-textures.ts'

const root = resolve(import.meta.dirname, '../..')
const corpus = resolve(root, '../shared/corpus')
const gltfpackPath = resolve(root, '../shared/peers/gltfpack')
const kilnMesh = kilnMeshPath()
// Another kiln-mesh build to run optimize with (the one before a change, say); the textures are
// measured by this tree's build either way.
const kilnOptimizer = process.env.KILN_MESH ?? kilnMesh
const work = join(root, 'bench/.out/mesh/textures')
const quick = process.argv.includes('--quick')
const format = process.argv.find((a) => a.startsWith('--format='))?.slice(9)
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 1)

for (const [path, what] of [
  [kilnMesh, 'kiln-mesh (npm run build:native)'],
  [gltfpackPath, 'native gltfpack (../shared/peers)'],
]) {
  if (!existsSync(path!)) {
    console.error(`missing ${what} at ${path}`)
    process.exit(1)
  }
}

interface Time {
  ms: number
  cpuMs: number
}

/** Wall and CPU milliseconds of one run of the command; CPU from perf's task-clock. */
function timed(command: string, args: string[]): Time {
  const started = performance.now()
  const r = spawnSync('perf', ['stat', '-x', ',', '-e', 'task-clock', command, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  const line = r.stderr.split('\n').find((l) => l.includes('task-clock'))
  if (!line) throw new Error(`no task-clock in perf output: ${r.stderr}`)
  return { ms, cpuMs: Number(line.split(',')[0]) }
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
  // Foliage with an alpha channel, added after the ETC1S search and the WebP search's stopping
  // rules were set: not tuned on either.
  const foliage = join(work, 'generated-foliage-1024.glb')
  if (!existsSync(foliage)) writeFileSync(foliage, texturedGlb(1024, foliageTexturePixels(1024)))
  list.push(foliage)
  return list
}

interface Contender {
  format: string
  tool: string
  run: (input: string, outDir: string) => Time
}

const kiln = (textures: string) => (input: string, outDir: string) =>
  timed(kilnOptimizer, ['optimize', input, outDir, JSON.stringify(coreOptions('optimize', { textures }))])
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
  cpuMs: number
  /** Khronos glTF validator errors of the output (warnings are not counted). */
  errors: number
  textures: Quality[]
}

const rows: Row[] = []
const chosen = inputs().filter((f) => !onlyWords || onlyWords.some((word) => basename(f).includes(word)))
for (const input of chosen) {
  const model = basename(input).replace(/\.(glb|gltf)$/, '')
  for (const c of contenders.filter((c) => !format || c.format === format)) {
    const outDir = join(work, model, `${c.format}-${c.tool.replace(/[^a-z0-9]+/g, '_')}`)
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    let best: Time = { ms: Infinity, cpuMs: Infinity }
    for (let round = 0; round < rounds; round++) {
      const time = c.run(input, outDir)
      best = { ms: Math.min(best.ms, time.ms), cpuMs: Math.min(best.cpuMs, time.cpuMs) }
    }
    const output = join(outDir, readdirSync(outDir).find((f) => f.endsWith('.glb'))!)
    const report = await validateBytes(new Uint8Array(readFileSync(output)))
    rows.push({
      model,
      format: c.format,
      tool: c.tool,
      ...best,
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
console.log(
  `\nper model: total texture bytes, CPU and wall time of the whole process (ms, best of ${rounds}); CPU ratio = kiln / gltfpack (-tw for webp, -tc for ktx2)\n`,
)
console.log(
  [
    'model',
    'format',
    'tool',
    'texture B',
    'mean dB',
    'CPU ms',
    'wall ms',
    'CPU ratio',
    'validator errors',
  ].join('\t'),
)
for (const r of rows) {
  const bytes = r.textures.reduce((s, t) => s + t.bytes, 0)
  const mean = r.textures.reduce((s, t) => s + t.psnr, 0) / Math.max(1, r.textures.length)
  const peer = rows.find((p) => p.model === r.model && p.format === r.format && p.tool !== 'kiln')
  const ratio = r.tool === 'kiln' && peer ? fmt(r.cpuMs / peer.cpuMs, 2) : ''
  console.log(
    [r.model, r.format, r.tool, bytes, fmt(mean, 2), fmt(r.cpuMs), fmt(r.ms), ratio, r.errors].join('\t'),
  )
}
writeFileSync(join(work, 'results.json'), JSON.stringify(rows, null, 2))
console.log(`\nraw rows: ${join(work, 'results.json')}`)
