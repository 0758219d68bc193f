// Simplify on a family of skinned creatures of varied structure (limbs, joints per limb, rings,
// segments, seed), none of them looked at while the posed simplifier was tuned: how far the bench's
// two creature rows reach. kiln-mesh (`simplify`, target_ratio 0.1, max_error 0.01) against native
// gltfpack (`-si 0.1 -se 0.01 -noq`) in the same run, best of --repeat runs each; each tool's time
// is the wall time of its whole process (kiln's was its core's own until session 39). Pose error as in run.ts
// (bench/mesh/pose.ts). Not a test.
//   node bench/mesh/creatures.ts [--repeat=5]      (KILN_MESH=<binary> runs another build)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { kilnMeshPath } from '../../native/cargo.ts'
import { coreOptions } from '../../native/mesh.ts'
import { writeDocument } from './generated.ts'
import { skinnedCreature } from './generated-creatures.ts'
import { poseError } from './pose.ts'

const root = resolve(import.meta.dirname, '../..')
const work = join(root, 'bench/.out/mesh/creatures')
const gltfpack = resolve(root, '../shared/peers/gltfpack')
const kilnMesh = process.env.KILN_MESH ?? kilnMeshPath()
const repeat = Number(process.argv.find((a) => a.startsWith('--repeat='))?.slice(9) ?? 5)
if (!existsSync(gltfpack)) throw new Error(`native gltfpack not found at ${gltfpack}`)
if (!existsSync(kilnMesh))
  throw new Error(`kiln-mesh not found at ${kilnMesh}: node native/build.ts mesh-cli`)

const shapes = [
  { limbs: 4, joints: 2, rings: 30, segments: 40, seed: 3 },
  { limbs: 7, joints: 4, rings: 44, segments: 36, seed: 11 },
  { limbs: 3, joints: 6, rings: 60, segments: 32, seed: 23 },
  { limbs: 8, joints: 3, rings: 36, segments: 52, seed: 41 },
  { limbs: 5, joints: 5, rings: 48, segments: 44, seed: 59 },
  { limbs: 6, joints: 2, rings: 56, segments: 60, seed: 83 },
  { limbs: 2, joints: 4, rings: 40, segments: 48, seed: 131 },
  { limbs: 9, joints: 3, rings: 32, segments: 40, seed: 177 },
]

function run(command: string, args: string[]): { ms: number; stdout: string } {
  const started = performance.now()
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26 })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  return { ms, stdout: r.stdout }
}

const options = JSON.stringify(coreOptions('simplify', { target_ratio: 0.1, max_error: 0.01, format: 'glb' }))
mkdirSync(work, { recursive: true })
console.log(
  '| creature | input faces | kiln ms | gltfpack ms | time | kiln faces | kiln bytes | gltfpack bytes | size | pose error kiln ÷ gltfpack |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
const totals = { kiln: 0, gltfpack: 0, kilnBytes: 0, gltfpackBytes: 0 }
for (const [i, shape] of shapes.entries()) {
  const name = `creature-${shape.limbs}x${shape.joints}-${shape.rings}x${shape.segments}-s${shape.seed}`
  const input = join(work, `${name}.glb`)
  if (!existsSync(input)) await writeDocument(input, skinnedCreature(shape))
  const kilnDir = join(work, `${i}-kiln`)
  const gltfpackOut = join(work, `${i}-gltfpack.glb`)
  let kilnMs = Number.POSITIVE_INFINITY
  let summary: { input_faces: number; output_faces: number } | undefined
  let gltfpackMs = Number.POSITIVE_INFINITY
  for (let k = 0; k < repeat; k++) {
    rmSync(kilnDir, { recursive: true, force: true })
    const kilnRun = run(kilnMesh, ['simplify', input, kilnDir, options])
    summary = JSON.parse(kilnRun.stdout)
    kilnMs = Math.min(kilnMs, kilnRun.ms)
    gltfpackMs = Math.min(
      gltfpackMs,
      run(gltfpack, ['-i', input, '-o', gltfpackOut, '-si', '0.1', '-se', '0.01', '-noq']).ms,
    )
  }
  const kilnOut = join(kilnDir, readdirSync(kilnDir).find((f) => f.endsWith('.glb')) ?? '')
  const [kilnBytes, gltfpackBytes] = [statSync(kilnOut).size, statSync(gltfpackOut).size]
  const [kilnPose, gltfpackPose] = [await poseError(input, kilnOut), await poseError(input, gltfpackOut)]
  totals.kiln += kilnMs
  totals.gltfpack += gltfpackMs
  totals.kilnBytes += kilnBytes
  totals.gltfpackBytes += gltfpackBytes
  const pose = kilnPose !== null && gltfpackPose ? (kilnPose / gltfpackPose).toFixed(2) : '-'
  console.log(
    `| ${name} | ${summary?.input_faces} | ${kilnMs.toFixed(0)} | ${gltfpackMs.toFixed(0)} | ${(kilnMs / gltfpackMs).toFixed(2)} | ${summary?.output_faces} | ${kilnBytes} | ${gltfpackBytes} | ${(kilnBytes / gltfpackBytes).toFixed(3)} | ${pose} |`,
  )
}
console.log(
  `\nall ${shapes.length}: kiln ${totals.kiln.toFixed(0)} ms, gltfpack ${totals.gltfpack.toFixed(0)} ms (${(totals.kiln / totals.gltfpack).toFixed(2)}x); bytes ${(totals.kilnBytes / totals.gltfpackBytes).toFixed(3)}x`,
)
