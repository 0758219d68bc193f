// Skinned creatures for the mesh bench: a lumpy body with limbs of several joints, each limb's
// skin blended over wide zones across its joints and into the body, animated by turns about
// wandering axes. Unlike `skinnedCylinder` (a smooth tube with one bend, which simplifies to its
// face target in one collapse), the poses bind here: collapses that hold at rest fold the bends
// of the limbs in their poses. Written in session 31, after CesiumMan was the only such model.
import { Document } from '@gltf-transform/core'
import { seededRandom } from '../../test/lifecycle/support/seeded.ts'

type Vec3 = [number, number, number]

const add = (a: Vec3, b: Vec3, k = 1): Vec3 => [a[0] + b[0] * k, a[1] + b[1] * k, a[2] + b[2] * k]
const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]
const unit = (a: Vec3): Vec3 => {
  const l = Math.hypot(...a)
  return [a[0] / l, a[1] / l, a[2] / l]
}
/** Smooth step from 0 at `a` to 1 at `b`. */
const blend = (x: number, a: number, b: number) => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)))
  return t * t * (3 - 2 * t)
}

interface Options {
  limbs: number
  /** Joints per limb. */
  joints: number
  /** Rings and segments of the body's grid; a limb's tube has `rings` rings of `segments / 2`. */
  rings: number
  segments: number
  seed: number
}

/**
 * One skinned mesh: the body (joint 0) and `limbs` tapered tubes sticking out of it in seeded
 * directions, each a chain of `joints` joints; one animation of 61 keys (2 s at 30 Hz) turning
 * every limb joint about its own wandering axis by up to 0.9 rad and the body by 0.3.
 */
export function skinnedCreature(options: Partial<Options> = {}): Document {
  const { limbs, joints, rings, segments, seed } = {
    limbs: 5,
    joints: 3,
    rings: 40,
    segments: 48,
    seed: 71,
    ...options,
  }
  const next = seededRandom(seed)
  const positions: number[] = []
  const jointIndices: number[] = []
  const weights: number[] = []
  const indices: number[] = []
  const lumps = Array.from({ length: 6 }, () => [next() * 6, next() * 6, (next() - 0.5) * 0.12])
  // The body: a lumpy ellipsoid of radius about 1, all on joint 0.
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI
    for (let s = 0; s < segments; s++) {
      const phi = (s / segments) * 2 * Math.PI
      // The lumps fade out toward the poles, so each pole is one point (its ring of vertices
      // coincide), as a modelling tool's sphere has it.
      const bump =
        Math.sin(theta) *
        lumps.reduce((sum, [a, b, k]) => sum + k! * Math.sin(a! * theta + 1) * Math.cos(b! * phi), 0)
      const radius = 1 + bump
      positions.push(
        radius * Math.sin(theta) * Math.cos(phi),
        1.3 * radius * Math.cos(theta),
        radius * Math.sin(theta) * Math.sin(phi),
      )
      jointIndices.push(0, 0, 0, 0)
      weights.push(1, 0, 0, 0)
    }
  }
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s
      const b = r * segments + ((s + 1) % segments)
      indices.push(a, a + segments, b, b, a + segments, b + segments)
    }
  // The limbs: tubes from inside the body outward, each joint a segment of the limb.
  const limbJoints: { direction: Vec3; start: Vec3; length: number }[] = []
  const tube = segments / 2
  for (let l = 0; l < limbs; l++) {
    const direction = unit([next() * 2 - 1, next() * 1.6 - 0.8, next() * 2 - 1])
    const length = 1.6 + next() * 1.2
    const start: Vec3 = add([0, 0, 0], direction, 0.6)
    limbJoints.push({ direction, start, length })
    const side = unit(cross(direction, Math.abs(direction[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0]))
    const across = cross(direction, side)
    const base = positions.length / 3
    for (let r = 0; r <= rings; r++) {
      const along = r / rings
      const radius = 0.32 * (1 - 0.55 * along) * (1 + 0.06 * Math.sin(along * 17 + l))
      const centre = add(start, direction, along * length)
      // The joint this ring belongs to, blended with its neighbour over a third of a joint's
      // span on each side of the joint between them, and into the body over the limb's first sixth.
      const x = along * joints
      const j = Math.min(joints - 1, Math.floor(x))
      const t = x - j
      const [other, share] =
        t < 0.33 && j > 0
          ? [j - 1, 1 - blend(t + 1, 0.67, 1.33)]
          : t > 0.67 && j + 1 < joints
            ? [j + 1, blend(t, 0.67, 1.33)]
            : [j, 0]
      const fromBody = 1 - blend(along, 0, 1 / 6)
      const first = 1 + l * joints
      for (let s = 0; s < tube; s++) {
        const phi = (s / tube) * 2 * Math.PI
        const p = add(add(centre, side, radius * Math.cos(phi)), across, radius * Math.sin(phi))
        positions.push(...p)
        jointIndices.push(0, first + j, first + other, 0)
        weights.push(fromBody, (1 - fromBody) * (1 - share), (1 - fromBody) * share, 0)
      }
    }
    for (let r = 0; r < rings; r++)
      for (let s = 0; s < tube; s++) {
        const a = base + r * tube + s
        const b = base + r * tube + ((s + 1) % tube)
        indices.push(a, b, a + tube, b, b + tube, a + tube)
      }
  }
  const doc = new Document()
  const buffer = doc.createBuffer()
  const accessor = (
    type: 'VEC3' | 'VEC4' | 'SCALAR' | 'MAT4',
    array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
    .setAttribute('JOINTS_0', accessor('VEC4', new Uint16Array(jointIndices)))
    .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array(weights)))
    .setIndices(accessor('SCALAR', new Uint32Array(indices)))
    .setMaterial(doc.createMaterial('hide'))
  // Joints: the body at the origin, each limb's chain along its direction (translations only,
  // so each inverse bind matrix is the joint's world position undone).
  const body = doc.createNode('body-joint')
  const nodes = [body]
  const worlds: Vec3[] = [[0, 0, 0]]
  for (const { direction, start, length } of limbJoints) {
    let parent = body
    let world: Vec3 = [0, 0, 0]
    for (let j = 0; j < joints; j++) {
      const at = add(start, direction, (j * length) / joints)
      const node = doc
        .createNode(`limb-joint-${nodes.length}`)
        .setTranslation([at[0] - world[0], at[1] - world[1], at[2] - world[2]])
      parent.addChild(node)
      nodes.push(node)
      worlds.push(at)
      parent = node
      world = at
    }
  }
  const inverseBind = new Float32Array(nodes.length * 16)
  for (const [i, w] of worlds.entries()) {
    inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -w[0], -w[1], -w[2], 1], i * 16)
  }
  const skin = doc.createSkin('rig').setInverseBindMatrices(accessor('MAT4', inverseBind))
  for (const node of nodes) skin.addJoint(node)
  const holder = doc
    .createNode('creature')
    .setMesh(doc.createMesh('creature').addPrimitive(primitive))
    .setSkin(skin)
  doc.createScene().addChild(body).addChild(holder)
  const keys = 61
  const times = accessor(
    'SCALAR',
    Float32Array.from({ length: keys }, (_, k) => k / 30),
  )
  const animation = doc.createAnimation('move')
  nodes.forEach((node, i) => {
    const reach = i === 0 ? 0.3 : 0.9
    const [a, b, speed] = [next() * 6, next() * 6, 2 + next() * 3]
    const rotation = new Float32Array(keys * 4)
    for (let k = 0; k < keys; k++) {
      const t = k / 30
      const axis = unit([Math.sin(a + t), Math.cos(b + 0.7 * t), 0.4])
      const half = (reach * Math.sin(speed * t + i)) / 2
      rotation.set([...axis.map((c) => c * Math.sin(half)), Math.cos(half)], k * 4)
    }
    const sampler = doc.createAnimationSampler().setInput(times).setOutput(accessor('VEC4', rotation))
    animation
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler),
      )
  })
  return doc
}
