// The held-out set: every generated family of the bench again, with other seeds and another
// structure (more or fewer meshes, instances, joints, keys, cells), written in session 21 and
// never tuned on. `node bench/mesh/run.ts --held-out` runs it instead of the usual inputs, so a
// claim made on the usual rows can be checked on models nobody looked at while making it.
import type { Document } from '@gltf-transform/core'
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

/** File name and maker of each held-out model; `quick` keeps the large ones small. */
export function heldOutModels(quick: boolean): [string, () => Document][] {
  return [
    [
      quick ? 'held-out-sphere-600k.glb' : 'held-out-sphere-1.5m.glb',
      () => noisySphere(quick ? 600_000 : 1_500_000, 31),
    ],
    ['held-out-sphere-300k.glb', () => noisySphere(300_000, 37)],
    ['held-out-many-small-meshes.glb', () => manySmallMeshes(800, 41)],
    ['held-out-instanced.glb', () => instancedMesh(1_500, 43)],
    ['held-out-skinned.glb', () => skinnedCylinder(200, 7)],
    [
      'held-out-skinned-creature.glb',
      () => skinnedCreature({ limbs: 6, joints: 5, rings: 50, segments: 56, seed: 97 }),
    ],
    ['held-out-vehicle.glb', () => vehicle({ wheels: 6, bolts: 30, rings: 90, seed: 89 })],
    ['held-out-animated.glb', () => animatedBoxes(40, 600, 47)],
    ['held-out-animated-arms.glb', () => animatedArms(8, 3, 200, 53)],
    ['held-out-baked-robots.glb', () => bakedRobots(6, 8, 500, 59)],
    [
      quick ? 'held-out-long-take-100k.glb' : 'held-out-long-take.glb',
      () => longTake(40, quick ? 2_500 : 50_000),
    ],
    [
      quick ? 'held-out-motion-capture-100k.glb' : 'held-out-motion-capture.glb',
      () => motionCapture(24, quick ? 4_000 : 60_000, 61),
    ],
    ['held-out-textured.glb', () => texturedMeshes(67)],
    ['held-out-terrain.glb', () => terrain(600, 71)],
    ['held-out-hard-surface.glb', () => hardSurface(400, 73)],
    ['held-out-lightmapped-room.glb', () => lightmappedRoom(79)],
  ]
}
