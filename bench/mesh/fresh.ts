// A fresh set: every generated family of the bench at a structure and seed drawn from one number,
// so that anyone can check the bench's claims on models nobody has run before.
// `node bench/mesh/run.ts --fresh=N` runs it instead of the usual inputs; another N gives another
// set. The usual set was tuned on and the held-out set (held-out.ts) is fixed; this one has no
// fixed members at all. Each family's sizes are drawn from a range around its usual and held-out
// ones (wider in structure, a little narrower in size, so a run stays within minutes), and the
// file names carry them.
import type { Document } from '@gltf-transform/core'
import { seededRandom } from '../../test/lifecycle/support/seeded.ts'
import {
  animatedArms,
  animatedBoxes,
  bakedRobots,
  instancedMesh,
  longTake,
  manySmallMeshes,
  motionCapture,
  noisySphere,
  skinnedCylinder,
  texturedMeshes,
} from './generated.ts'
import { skinnedCreature } from './generated-creatures.ts'
import { hardSurface, lightmappedRoom, terrain } from './generated-surfaces.ts'
import { vehicle } from './generated-vehicles.ts'

/** File name and maker of each model of set `n`; `quick` keeps the large ones small. */
export function freshModels(n: number, quick: boolean): [string, () => Document][] {
  const next = seededRandom(1_000_003 * n + 17)
  /** A whole number in [low, high]. */
  const pick = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  const seed = () => pick(100, 1_000_000)
  const big = quick ? 1 / 5 : 1
  const models: [string, () => Document][] = []
  /** A family's model at `sizes`, seeded where `make` takes a seed (the name says which). */
  const add = (family: string, sizes: number[], make: (s: number) => Document, seeded = true) => {
    const s = seeded ? seed() : 0
    const name = [`fresh-${n}`, family, sizes.join('x'), seeded ? `s${s}` : ''].filter(Boolean).join('-')
    models.push([`${name}.glb`, () => make(s)])
  }
  const sphere = pick(400_000, 1_600_000) * big
  add('sphere', [Math.round(sphere)], (s) => noisySphere(Math.round(sphere), s))
  const meshes = pick(150, 1_000)
  add('many-small-meshes', [meshes], (s) => manySmallMeshes(meshes, s))
  const instances = pick(200, 2_000)
  add('instanced', [instances], (s) => instancedMesh(instances, s))
  const [rings, joints] = [pick(60, 260), pick(2, 9)]
  add('skinned', [rings, joints], () => skinnedCylinder(rings, joints), false)
  const creature = { limbs: pick(2, 8), joints: pick(2, 6), rings: pick(24, 60), segments: pick(24, 64) }
  add('skinned-creature', Object.values(creature), (s) => skinnedCreature({ ...creature, seed: s }))
  const car = { wheels: pick(3, 8), bolts: pick(0, 40), rings: pick(30, 110) }
  add('vehicle', Object.values(car), (s) => vehicle({ ...car, seed: s }))
  const [boxes, boxKeys] = [pick(6, 60), pick(40, 800)]
  add('animated', [boxes, boxKeys], (s) => animatedBoxes(boxes, boxKeys, s))
  const [arms, segments, armKeys] = [pick(2, 9), pick(3, 10), pick(48, 400)]
  add('animated-arms', [arms, segments, armKeys], (s) => animatedArms(arms, segments, armKeys, s))
  const [robots, robotJoints, robotKeys] = [pick(1, 8), pick(3, 12), pick(100, 1_200)]
  add('baked-robots', [robots, robotJoints, robotKeys], (s) => bakedRobots(robots, robotJoints, robotKeys, s))
  const [takeNodes, takeKeys] = [pick(20, 120), Math.round(pick(5_000, 40_000) * big)]
  add('long-take', [takeNodes, takeKeys], () => longTake(takeNodes, takeKeys), false)
  const [captureNodes, captureKeys] = [pick(10, 60), Math.round(pick(4_000, 40_000) * big)]
  add('motion-capture', [captureNodes, captureKeys], (s) => motionCapture(captureNodes, captureKeys, s))
  add('textured', [], (s) => texturedMeshes(s))
  const cells = pick(200, 700)
  add('terrain', [cells], (s) => terrain(cells, s))
  const parts = pick(60, 500)
  add('hard-surface', [parts], (s) => hardSurface(parts, s))
  add('lightmapped-room', [], (s) => lightmappedRoom(s))
  return models
}
