// How far an output's animation strays from the source's, as a viewer would see it: both files are
// posed at the same moments of each animation (evenly spread over its time span), and at each pose
// the source's vertices are measured against the output's surface in world space (geometry.ts
// surfaceError, relative to the posed source's diagonal). The largest over all poses is the pose
// error. Translation, rotation and scale channels are posed (skinned meshes follow their joints);
// morph weights are not.
import type { Animation, AnimationSampler, Document, Node } from '@gltf-transform/core'
import { readDocument, surfaceError, trianglesOf } from './geometry.ts'

/** Poses per animation. */
const poses = 16

/** Key k's value (the middle of its in-tangent, value, out-tangent triple for CUBICSPLINE). */
function keyValue(sampler: AnimationSampler, k: number, cubic: boolean): number[] {
  return sampler.getOutput()!.getElement(cubic ? k * 3 + 1 : k, [])
}

function tangent(sampler: AnimationSampler, k: number, which: 0 | 2): number[] {
  return sampler.getOutput()!.getElement(k * 3 + which, [])
}

function slerp(a: number[], b: number[], s: number): number[] {
  let dot = a.reduce((sum, v, i) => sum + v * b[i]!, 0)
  const to = dot < 0 ? b.map((v) => -v) : b
  dot = Math.abs(dot)
  if (dot > 0.9995) return normalize(a.map((v, i) => v + (to[i]! - v) * s))
  const theta = Math.acos(dot)
  const [wa, wb] = [Math.sin((1 - s) * theta) / Math.sin(theta), Math.sin(s * theta) / Math.sin(theta)]
  return a.map((v, i) => wa * v + wb * to[i]!)
}

function normalize(q: number[]): number[] {
  const length = Math.hypot(...q) || 1
  return q.map((v) => v / length)
}

/** The sampler's value at time t, as glTF defines each interpolation (clamped outside the keys). */
function sampleAt(sampler: AnimationSampler, t: number, rotation: boolean): number[] {
  const times = sampler.getInput()!.getArray()!
  const cubic = sampler.getInterpolation() === 'CUBICSPLINE'
  const last = times.length - 1
  if (t <= times[0]!) return finish(keyValue(sampler, 0, cubic), rotation)
  if (t >= times[last]!) return finish(keyValue(sampler, last, cubic), rotation)
  let k = 0
  while (times[k + 1]! <= t) k++
  const dt = times[k + 1]! - times[k]!
  const s = (t - times[k]!) / dt
  const [a, b] = [keyValue(sampler, k, cubic), keyValue(sampler, k + 1, cubic)]
  if (sampler.getInterpolation() === 'STEP') return finish(a, rotation)
  if (cubic) {
    const [outTangent, inTangent] = [tangent(sampler, k, 2), tangent(sampler, k + 1, 0)]
    const s2 = s * s
    const s3 = s2 * s
    const value = a.map(
      (v, i) =>
        (2 * s3 - 3 * s2 + 1) * v +
        (s3 - 2 * s2 + s) * dt * outTangent[i]! +
        (-2 * s3 + 3 * s2) * b[i]! +
        (s3 - s2) * dt * inTangent[i]!,
    )
    return finish(value, rotation)
  }
  return rotation ? slerp(normalize(a), normalize(b), s) : a.map((v, i) => v + (b[i]! - v) * s)
}

const finish = (value: number[], rotation: boolean) => (rotation ? normalize(value) : value)

function span(animation: Animation): [number, number] {
  let [start, end] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]
  for (const sampler of animation.listSamplers()) {
    const times = sampler.getInput()!.getArray()!
    start = Math.min(start, times[0]!)
    end = Math.max(end, times[times.length - 1]!)
  }
  return [start, end]
}

/** Sets every node the animation drives to its value at time t. */
function pose(animation: Animation, t: number): void {
  for (const channel of animation.listChannels()) {
    const node: Node | null = channel.getTargetNode()
    const sampler = channel.getSampler()
    if (!node || !sampler) continue
    const path = channel.getTargetPath()
    if (path === 'translation') node.setTranslation(sampleAt(sampler, t, false) as [number, number, number])
    else if (path === 'scale') node.setScale(sampleAt(sampler, t, false) as [number, number, number])
    else if (path === 'rotation')
      node.setRotation(sampleAt(sampler, t, true) as [number, number, number, number])
  }
}

/** The output's animation that plays the source's: the same name, else the same place. */
function counterpart(output: Document, animation: Animation, index: number): Animation | null {
  const list = output.getRoot().listAnimations()
  const name = animation.getName()
  return (name ? list.find((a) => a.getName() === name) : undefined) ?? list[index] ?? null
}

/** The largest surface error over the poses of every animation; null when the source has none. */
export async function poseError(input: string, output: string): Promise<number | null> {
  const [source, result] = [await readDocument(input), await readDocument(output)]
  const animations = source.getRoot().listAnimations()
  if (animations.length === 0) return null
  let worst = 0
  animations.forEach((animation, index) => {
    const played = counterpart(result, animation, index)
    const [start, end] = span(animation)
    for (let i = 0; i < poses; i++) {
      const t = start + ((end - start) * i) / (poses - 1)
      pose(animation, t)
      if (played) pose(played, t)
      worst = Math.max(worst, surfaceError(trianglesOf(source), trianglesOf(result)).max)
    }
  })
  return worst
}
