// Generated bench models of varied structure, from a seed so every run (and every machine) gets the
// same files: many small meshes sharing a few materials, one mesh placed by hundreds of nodes, a
// skinned cylinder with an animation, boxes whose file is mostly animation keys, arms on cubic
// splines, robots baked at 60 keys a second, a long take of 2 million keys, and a textured grid. They cover the scene shapes where
// gltfpack's merging and instancing matter, which the corpus models barely do.
import { crc32, deflateSync } from 'node:zlib'
import {
  type Accessor,
  type Animation,
  Document,
  type Material,
  type Node,
  NodeIO,
  type Primitive,
} from '@gltf-transform/core'
import { seededRandom } from '../../test/lifecycle/support/seeded.ts'

/** A UV sphere of rings × 2·rings quads with positions, normals and UVs, bumped by `noise`. */
function sphere(rings: number, noise: () => number, amplitude: number) {
  const segments = rings * 2
  const count = (rings + 1) * (segments + 1)
  const positions = new Float32Array(count * 3)
  const normals = new Float32Array(count * 3)
  const uvs = new Float32Array(count * 2)
  let k = 0
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI
    for (let s = 0; s <= segments; s++) {
      const phi = (s / segments) * 2 * Math.PI
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)]
      const bump = 1 + amplitude * (noise() - 0.5)
      positions.set(
        n.map((v) => v * bump),
        k * 3,
      )
      normals.set(n, k * 3)
      uvs.set([s / segments, r / rings], k * 2)
      k++
    }
  }
  const indices = new Uint32Array(rings * segments * 6)
  k = 0
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s
      const b = a + segments + 1
      indices.set([a, b, a + 1, a + 1, b, b + 1], k)
      k += 6
    }
  return { positions, normals, uvs, indices }
}

function primitive(
  doc: Document,
  g: ReturnType<typeof sphere>,
  material: Material | null,
  uv: boolean,
): Primitive {
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer()
  const accessor = (
    type: 'VEC3' | 'VEC2' | 'SCALAR',
    array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>,
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
  const p = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', g.positions))
    .setAttribute('NORMAL', accessor('VEC3', g.normals))
    .setIndices(accessor('SCALAR', g.indices))
  if (uv) p.setAttribute('TEXCOORD_0', accessor('VEC2', g.uvs))
  if (material) p.setMaterial(material)
  return p
}

/** A noisy sphere of about `triangles` triangles (the simplify and optimize limits). */
export function noisySphere(triangles: number, seed = 1): Document {
  const doc = new Document()
  doc.createBuffer()
  const g = sphere(Math.round(Math.sqrt(triangles / 4)), seededRandom(seed), 0.02)
  doc
    .createScene()
    .addChild(
      doc.createNode('sphere').setMesh(doc.createMesh('sphere').addPrimitive(primitive(doc, g, null, false))),
    )
  return doc
}

/** `count` small spheres, each its own mesh under its own node, sharing four materials. */
export function manySmallMeshes(count = 300, seed = 2): Document {
  const doc = new Document()
  doc.createBuffer()
  const next = seededRandom(seed)
  const materials = [0, 1, 2, 3].map((i) =>
    doc.createMaterial(`paint-${i}`).setBaseColorFactor([next(), next(), next(), 1]),
  )
  const scene = doc.createScene()
  for (let i = 0; i < count; i++) {
    const mesh = doc.createMesh(`part-${i}`)
    mesh.addPrimitive(primitive(doc, sphere(6 + (i % 5), next, 0.1), materials[i % 4]!, false))
    const node = doc
      .createNode(`part-${i}`)
      .setMesh(mesh)
      .setTranslation([next() * 20 - 10, next() * 20 - 10, next() * 20 - 10])
      .setScale([0.3 + next(), 0.3 + next(), 0.3 + next()])
    scene.addChild(node)
  }
  return doc
}

/** One mesh placed by `count` nodes with different positions, rotations and scales. */
export function instancedMesh(count = 400, seed = 3): Document {
  const doc = new Document()
  doc.createBuffer()
  const next = seededRandom(seed)
  const mesh = doc
    .createMesh('rock')
    .addPrimitive(primitive(doc, sphere(16, next, 0.3), doc.createMaterial('stone'), false))
  const scene = doc.createScene()
  for (let i = 0; i < count; i++) {
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5]
    const length = Math.hypot(...axis) || 1
    const angle = next() * Math.PI
    const q = [...axis.map((v) => (v / length) * Math.sin(angle / 2)), Math.cos(angle / 2)] as [
      number,
      number,
      number,
      number,
    ]
    const s = 0.5 + next()
    scene.addChild(
      doc
        .createNode(`rock-${i}`)
        .setMesh(mesh)
        .setTranslation([next() * 50, 0, next() * 50])
        .setRotation(q)
        .setScale([s, s, s]),
    )
  }
  return doc
}

/** A cylinder of `rings` rings skinned to `joints` stacked joints, with a bending animation. */
export function skinnedCylinder(rings = 120, joints = 4): Document {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const segments = 48
  const height = 4
  const count = (rings + 1) * segments
  const positions = new Float32Array(count * 3)
  const normals = new Float32Array(count * 3)
  const jointIndices = new Uint16Array(count * 4)
  const weights = new Float32Array(count * 4)
  for (let r = 0; r <= rings; r++) {
    const y = (r / rings) * height
    const along = (y / height) * (joints - 1)
    const j = Math.min(joints - 2, Math.floor(along))
    const w = along - j
    for (let s = 0; s < segments; s++) {
      const phi = (s / segments) * 2 * Math.PI
      const v = r * segments + s
      positions.set([0.4 * Math.cos(phi), y, 0.4 * Math.sin(phi)], v * 3)
      normals.set([Math.cos(phi), 0, Math.sin(phi)], v * 3)
      jointIndices.set([j, j + 1, 0, 0], v * 4)
      weights.set([1 - w, w, 0, 0], v * 4)
    }
  }
  const indices = new Uint32Array(rings * segments * 6)
  let k = 0
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s
      const b = r * segments + ((s + 1) % segments)
      indices.set([a, a + segments, b, b, a + segments, b + segments], k)
      k += 6
    }
  const accessor = (
    type: 'VEC3' | 'VEC4' | 'SCALAR' | 'MAT4',
    array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', normals))
    .setAttribute('JOINTS_0', accessor('VEC4', jointIndices))
    .setAttribute('WEIGHTS_0', accessor('VEC4', weights))
    .setIndices(accessor('SCALAR', indices))
    .setMaterial(doc.createMaterial('skin'))
  const spacing = height / (joints - 1)
  const bones = Array.from({ length: joints }, (_, i) =>
    doc.createNode(`bone-${i}`).setTranslation([0, i === 0 ? 0 : spacing, 0]),
  )
  for (let i = 1; i < joints; i++) bones[i - 1]!.addChild(bones[i]!)
  const inverseBind = new Float32Array(joints * 16)
  for (let i = 0; i < joints; i++)
    inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -i * spacing, 0, 1], i * 16)
  const skin = doc.createSkin('rig').setInverseBindMatrices(accessor('MAT4', inverseBind))
  for (const bone of bones) skin.addJoint(bone)
  const body = doc.createNode('body').setMesh(doc.createMesh('body').addPrimitive(prim)).setSkin(skin)
  doc.createScene().addChild(bones[0]!).addChild(body)
  const times = new Float32Array([0, 1, 2])
  const bend = Math.sin(0.3)
  const rotations = new Float32Array([0, 0, 0, 1, 0, 0, bend, Math.cos(0.3), 0, 0, 0, 1])
  const animation = doc.createAnimation('bend')
  for (const bone of bones.slice(1)) {
    const sampler = doc
      .createAnimationSampler()
      .setInput(accessor('SCALAR', times))
      .setOutput(accessor('VEC4', rotations))
    animation
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(bone).setTargetPath('rotation').setSampler(sampler),
      )
  }
  return doc
}

/** Makes animation key accessors of the document, all in one buffer. */
function keyAccessors(doc: Document) {
  const buffer = doc.createBuffer()
  return (type: 'SCALAR' | 'VEC3' | 'VEC4', array: Float32Array<ArrayBuffer>) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
}

interface AnimatedScene {
  seed: number
  /** The one mesh the nodes share: a small sphere of `rings` rings bumped by `bump`. */
  mesh: { name: string; material: string; rings: number; bump: number }
  animation: string
  keys: number
  rate: number
}

/**
 * What every animated scene here starts from: a document, its random source, the shared mesh, a
 * scene, one animation, and its `keys` key times at `rate` a second.
 */
function animatedScene({ seed, mesh, animation, keys, rate }: AnimatedScene) {
  const doc = new Document()
  const next = seededRandom(seed)
  const accessor = keyAccessors(doc)
  const shared = doc
    .createMesh(mesh.name)
    .addPrimitive(
      primitive(doc, sphere(mesh.rings, next, mesh.bump), doc.createMaterial(mesh.material), false),
    )
  const times = accessor(
    'SCALAR',
    Float32Array.from({ length: keys }, (_, k) => k / rate),
  )
  return {
    doc,
    next,
    accessor,
    mesh: shared,
    scene: doc.createScene(),
    animation: doc.createAnimation(animation),
    times,
  }
}

/**
 * Boxes that bounce, squash and spin, each on its own node with `keys` keys of translation, rotation
 * and scale (linear, 30 a second): a scene whose bytes are mostly animation, where the keys'
 * precision and count decide the file's size.
 */
export function animatedBoxes(count = 12, keys = 120, seed = 6): Document {
  const { doc, next, accessor, mesh, scene, animation, times } = animatedScene({
    seed,
    mesh: { name: 'box', material: 'paint', rings: 2, bump: 0 },
    animation: 'bounce',
    keys,
    rate: 30,
  })
  for (let i = 0; i < count; i++) {
    const node = doc.createNode(`box-${i}`).setMesh(mesh)
    scene.addChild(node)
    const [x, z] = [(i % 4) * 6 - 9 + next(), Math.floor(i / 4) * 6 - 6 + next()]
    const [height, period, spin] = [2 + 4 * next(), 0.6 + next(), 1 + 3 * next()]
    const axis = [next() - 0.5, 1, next() - 0.5]
    const axisLength = Math.hypot(...axis)
    const translation = new Float32Array(keys * 3)
    const rotation = new Float32Array(keys * 4)
    const scale = new Float32Array(keys * 3)
    for (let k = 0; k < keys; k++) {
      const t = k / 30
      const phase = (t / period) % 1
      const y = height * 4 * phase * (1 - phase)
      // Squashed near the ground, stretched in the air; the volume roughly kept.
      const stretch = 0.7 + 0.6 * Math.min(1, y / height + 0.2)
      translation.set([x + 0.4 * Math.sin(t * 1.3 + i), y, z + 0.4 * Math.cos(t * 0.9 + i)], k * 3)
      const half = (spin * t) / 2
      rotation.set([...axis.map((v) => (v / axisLength) * Math.sin(half)), Math.cos(half)], k * 4)
      scale.set([1 / Math.sqrt(stretch), stretch, 1 / Math.sqrt(stretch)], k * 3)
    }
    for (const [path, type, values] of [
      ['translation', 'VEC3', translation],
      ['rotation', 'VEC4', rotation],
      ['scale', 'VEC3', scale],
    ] as const) {
      const sampler = doc.createAnimationSampler().setInput(times).setOutput(accessor(type, values))
      animation
        .addSampler(sampler)
        .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler))
    }
  }
  return doc
}

/**
 * A different animation-heavy scene from `animatedBoxes`: `arms` jointed arms of `segments` nested
 * nodes each (a deep hierarchy of small parts), every joint swinging about its own axis through
 * CUBICSPLINE rotation keys at 24 a second; no translation or scale keys. Where `animatedBoxes` is
 * loose parts moving on their own, here each key moves everything below its joint.
 */
export function animatedArms(arms = 4, segments = 6, keys = 96, seed = 9): Document {
  const rate = 24
  const {
    doc,
    next,
    accessor,
    mesh: part,
    scene,
    animation,
    times,
  } = animatedScene({
    seed,
    mesh: { name: 'segment', material: 'metal', rings: 3, bump: 0.02 },
    animation: 'swing',
    keys,
    rate,
  })
  for (let a = 0; a < arms; a++) {
    const base = doc.createNode(`arm-${a}`).setTranslation([(a % 2) * 8 - 4, 0, Math.floor(a / 2) * 8 - 4])
    scene.addChild(base)
    let parent = base
    for (let j = 0; j < segments; j++) {
      const joint = doc.createNode(`arm-${a}-joint-${j}`).setTranslation(j === 0 ? [0, 0, 0] : [0, 1.6, 0])
      const body = doc
        .createNode(`arm-${a}-segment-${j}`)
        .setMesh(part)
        .setTranslation([0, 0.8, 0])
        .setScale([0.35 - 0.03 * j, 0.8, 0.35 - 0.03 * j])
      joint.addChild(body)
      parent.addChild(joint)
      parent = joint
      const axis = [next() - 0.5, 0.3 * (next() - 0.5), next() - 0.5]
      const axisLength = Math.hypot(...axis)
      const [amplitude, omega, phase] = [0.3 + 0.6 * next(), 1.5 + 3 * next(), 6 * next()]
      // Per key: in-tangent, value, out-tangent (glTF's CUBICSPLINE layout), the tangents being the
      // quaternion's derivative in time.
      const output = new Float32Array(keys * 12)
      for (let k = 0; k < keys; k++) {
        const t = k / rate
        const angle = amplitude * Math.sin(omega * t + phase)
        const halfSpeed = amplitude * omega * Math.cos(omega * t + phase) * 0.5
        const [s, c] = [Math.sin(angle / 2), Math.cos(angle / 2)]
        const value = [...axis.map((v) => (v / axisLength) * s), c]
        const tangent = [...axis.map((v) => (v / axisLength) * c * halfSpeed), -s * halfSpeed]
        output.set([...tangent, ...value, ...tangent], k * 12)
      }
      const sampler = doc
        .createAnimationSampler()
        .setInput(times)
        .setOutput(accessor('VEC4', output))
        .setInterpolation('CUBICSPLINE')
      animation
        .addSampler(sampler)
        .addChannel(
          doc.createAnimationChannel().setTargetNode(joint).setTargetPath('rotation').setSampler(sampler),
        )
    }
  }
  return doc
}

/**
 * Robots baked at 60 keys a second, LINEAR, as exporters write them: each joint turns about one
 * axis from pose to pose with eased moves and holds between them, and each base drives along a
 * curve. The last robot's joints carry a tremor of about 2e-4 rad, as captured motion does.
 * Not a shape kiln was tuned on: written after key reduction, to see how far its result reaches.
 */
export function bakedRobots(robots = 3, joints = 5, keys = 300, seed = 11): Document {
  const rate = 60
  const {
    doc,
    next,
    accessor,
    mesh: link,
    scene,
    animation,
    times,
  } = animatedScene({
    seed,
    mesh: { name: 'link', material: 'steel', rings: 4, bump: 0.02 },
    animation: 'work',
    keys,
    rate,
  })
  const track = (
    node: ReturnType<Document['createNode']>,
    path: 'rotation' | 'translation',
    values: number[][],
  ) => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(accessor(path === 'rotation' ? 'VEC4' : 'VEC3', Float32Array.from(values.flat())))
      .setInterpolation('LINEAR')
    animation
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler))
  }
  // Poses every 0.5 to 1.5 s, reached with a smoothstep ease over the first half of each interval.
  type Pose = { at: number; value: number }
  const eased = (poses: Pose[], t: number) => {
    const i = Math.max(
      0,
      poses.findLastIndex((p) => p.at <= t),
    )
    const a = poses[i] as Pose
    const b = poses[Math.min(i + 1, poses.length - 1)] as Pose
    if (a === b) return a.value
    const u = Math.min(1, (t - a.at) / ((b.at - a.at) / 2))
    return a.value + (b.value - a.value) * u * u * (3 - 2 * u)
  }
  const poses = (range: number) => {
    const list: Pose[] = [{ at: 0, value: 0 }]
    for (let at = 0; at < keys / rate; ) {
      at += 0.5 + next()
      list.push({ at, value: range * (next() - 0.5) })
    }
    return list
  }
  for (let r = 0; r < robots; r++) {
    const base = doc.createNode(`robot-${r}`)
    scene.addChild(base)
    const [radius, speed, phase] = [3 + 2 * next(), 0.2 + 0.3 * next(), 6 * next()]
    track(
      base,
      'translation',
      Array.from({ length: keys }, (_, k) => {
        const a = phase + (speed * k) / rate
        return [radius * Math.cos(a) + r * 8, 0, radius * Math.sin(a)]
      }),
    )
    let parent = base
    for (let j = 0; j < joints; j++) {
      const joint = doc
        .createNode(`robot-${r}-joint-${j}`)
        .setTranslation(j === 0 ? [0, 0.5, 0] : [0, 1.2, 0])
      joint.addChild(
        doc
          .createNode(`robot-${r}-link-${j}`)
          .setMesh(link)
          .setTranslation([0, 0.6, 0])
          .setScale([0.25, 0.6, 0.25]),
      )
      parent.addChild(joint)
      parent = joint
      const axis = j % 2 === 0 ? [0, 1, 0] : [1, 0, 0]
      const moves = poses(2)
      const tremor = r === robots - 1 ? 2e-4 : 0
      track(
        joint,
        'rotation',
        Array.from({ length: keys }, (_, k) => {
          const angle = eased(moves, k / rate) + tremor * (next() - 0.5) * 2
          const [s, c] = [Math.sin(angle / 2), Math.cos(angle / 2)]
          return [...axis.map((v) => v * s), c]
        }),
      )
    }
  }
  return doc
}

/**
 * A long take: `nodes` triangles each driven by a translation and a rotation track of `keys` LINEAR
 * keys at 60 a second (slow sines, as a camera or a prop on a path): about 56 MB at the defaults,
 * nearly all of it keys, to see what key reduction costs and gives on a file that size.
 */
/** LINEAR tracks of `node` over the key times `times`, one per path, in `animation`. */
function addLinearTracks(
  doc: Document,
  animation: Animation,
  node: Node,
  times: Accessor,
  tracks: readonly (readonly ['translation' | 'rotation', Accessor])[],
): void {
  for (const [path, output] of tracks) {
    const sampler = doc.createAnimationSampler().setInput(times).setOutput(output).setInterpolation('LINEAR')
    animation
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler))
  }
}

export function longTake(nodes = 100, keys = 20_000): Document {
  const doc = new Document()
  const accessor = keyAccessors(doc)
  const scene = doc.createScene()
  const animation = doc.createAnimation('take')
  const times = accessor(
    'SCALAR',
    Float32Array.from({ length: keys }, (_, k) => k / 60),
  )
  const triangle = doc
    .createMesh('triangle')
    .addPrimitive(
      doc
        .createPrimitive()
        .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))),
    )
  for (let i = 0; i < nodes; i++) {
    const node = doc.createNode(`prop-${i}`).setMesh(triangle)
    scene.addChild(node)
    const [translation, rotation] = [new Float32Array(keys * 3), new Float32Array(keys * 4)]
    for (let k = 0; k < keys; k++) {
      const t = k / 60
      translation.set([Math.sin(t * 0.3 + i) * 5, Math.cos(t * 0.2) * 3, i], k * 3)
      const angle = Math.sin(t * (0.5 + i / 100))
      rotation.set([0, Math.sin(angle / 2), 0, Math.cos(angle / 2)], k * 4)
    }
    addLinearTracks(doc, animation, node, times, [
      ['translation', accessor('VEC3', translation)],
      ['rotation', accessor('VEC4', rotation)],
    ])
  }
  return doc
}

/**
 * A motion capture: `nodes` joints in chains of four (each a child of the one before), every one a
 * small triangle on a LINEAR translation and rotation track of `keys` keys at 120 Hz, turning
 * about a wandering axis by up to 1.2 rad, with a sensor's jitter on every key (3e-4 rad and
 * units). Written after session 19's key-reduction work, not tuned on: high-rate, noisy tracks,
 * unlike `longTake`'s slow and smooth ones.
 */
export function motionCapture(nodes = 60, keys = 30_000, seed = 19): Document {
  const doc = new Document()
  const accessor = keyAccessors(doc)
  const next = seededRandom(seed)
  const jitter = () => (next() - 0.5) * 3e-4
  const scene = doc.createScene()
  const animation = doc.createAnimation('capture')
  const rate = 120
  const times = accessor(
    'SCALAR',
    Float32Array.from({ length: keys }, (_, k) => k / rate),
  )
  const triangle = doc
    .createMesh('marker')
    .addPrimitive(
      doc
        .createPrimitive()
        .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 0.2, 0, 0, 0, 0.2, 0]))),
    )
  let parent: ReturnType<typeof doc.createNode> | null = null
  for (let i = 0; i < nodes; i++) {
    const node = doc.createNode(`joint-${i}`).setMesh(triangle)
    if (parent && i % 4 !== 0) parent.addChild(node)
    else scene.addChild(node)
    parent = node
    const [translation, rotation] = [new Float32Array(keys * 3), new Float32Array(keys * 4)]
    for (let k = 0; k < keys; k++) {
      const t = k / rate
      translation.set(
        [Math.sin(t * 0.7 + i) * 0.3 + jitter(), 1 + Math.cos(t * 0.4) * 0.2 + jitter(), jitter()],
        k * 3,
      )
      const axis = [Math.sin(t * 0.3 + i), Math.cos(t * 0.2), 0.6]
      const length = Math.hypot(axis[0]!, axis[1]!, axis[2]!)
      const half = (Math.sin(t * (1 + i / 50)) * 1.2 + jitter()) / 2
      rotation.set([...axis.map((a) => (a / length) * Math.sin(half)), Math.cos(half)], k * 4)
    }
    addLinearTracks(doc, animation, node, times, [
      ['translation', accessor('VEC3', translation)],
      ['rotation', accessor('VEC4', rotation)],
    ])
  }
  return doc
}

/** A PNG of `size`² RGB pixels of seeded noise over a gradient (small: textures are not the point here). */
export function noisePng(size: number, seed: number): Uint8Array {
  const next = seededRandom(seed)
  const rows = Buffer.alloc(size * (size * 3 + 1))
  for (let y = 0; y < size; y++) {
    rows[y * (size * 3 + 1)] = 0
    for (let x = 0; x < size * 3; x++) rows[y * (size * 3 + 1) + 1 + x] = ((x * 2 + y) & 255) ^ (next() * 32)
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4, 'ascii')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
    return Buffer.concat([head, data, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** Twelve textured spheres under their own nodes, three textures, UVs sampled by every material. */
export function texturedMeshes(seed = 5): Document {
  const doc = new Document()
  doc.createBuffer()
  const next = seededRandom(seed)
  const materials = [0, 1, 2].map((i) =>
    doc.createMaterial(`textured-${i}`).setBaseColorTexture(
      doc
        .createTexture(`noise-${i}`)
        .setImage(noisePng(64, seed + i))
        .setMimeType('image/png'),
    ),
  )
  const scene = doc.createScene()
  for (let i = 0; i < 12; i++) {
    const mesh = doc
      .createMesh(`ball-${i}`)
      .addPrimitive(primitive(doc, sphere(40, next, 0.05), materials[i % 3]!, true))
    scene.addChild(
      doc
        .createNode(`ball-${i}`)
        .setMesh(mesh)
        .setTranslation([(i % 4) * 3, Math.floor(i / 4) * 3, 0]),
    )
  }
  return doc
}

/** A single triangle: what a tool costs to start and do nothing. */
export function tinyTriangle(): Document {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const prim = doc.createPrimitive().setAttribute(
    'POSITION',
    doc
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
      .setBuffer(buffer),
  )
  doc.createScene().addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)))
  return doc
}

export async function writeDocument(path: string, doc: Document): Promise<void> {
  await new NodeIO().write(path, doc)
}
