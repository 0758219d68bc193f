// What the mesh bench's claims stand on: its surface error measures the source's surface and only
// that, and a fresh set (`run.ts --fresh=N`) is the same models for the same N, so anyone can run
// the set a claim was made on, and other models for another N.
import { NodeIO } from '@gltf-transform/core'
import { describe, expect, test } from 'vitest'
import { freshModels } from '../../bench/mesh/fresh.ts'
import { surfaceError, type Triangles } from '../../bench/mesh/geometry.ts'

/** A unit square of two triangles, with `extra` vertices no triangle uses. */
function square(extra: number[][] = []): Triangles {
  const positions = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, ...extra.flat()]
  return { positions: new Float32Array(positions), indices: new Uint32Array([0, 1, 2, 0, 2, 3]) }
}

describe('the surface error', () => {
  test('is zero for a surface against itself, whatever vertices its triangles leave unused', () => {
    const withUnused = square([
      [0.5, 0.5, 3],
      [9, 9, 9],
    ])
    expect(surfaceError(withUnused, square()).max).toBe(0)
    expect(surfaceError(withUnused, withUnused).max).toBe(0)
  })

  test('is the farthest used vertex over the diagonal of the used vertices', () => {
    // The square's corner (1, 1, 0) is √0.5 from the half's nearest point, (0.5, 0.5, 0) on its long
    // edge, and the used vertices' diagonal is √2 (the unused one at (50, 50, 50) would make it 86).
    const half: Triangles = { positions: square().positions, indices: new Uint32Array([0, 1, 3]) }
    const { max } = surfaceError(square([[50, 50, 50]]), half)
    expect(max).toBeCloseTo(Math.sqrt(0.5) / Math.SQRT2, 6)
  })
})

describe('fresh sets', () => {
  test('the same number gives the same models, another number others', async () => {
    const names = (n: number) => freshModels(n, true).map(([name]) => name)
    expect(names(1)).toEqual(names(1))
    expect(names(1)).toHaveLength(15)
    expect(new Set(names(1)).size).toBe(15)
    const other = names(2)
    expect(other.filter((name) => names(1).includes(name))).toEqual([])
    // Every family, each once, named after its set.
    const family = (name: string) =>
      name.replace(/^fresh-\d+-/, '').replace(/-[\dx]+(-s\d+)?\.glb$|-s\d+\.glb$/, '')
    expect(names(3).map(family)).toEqual(names(1).map(family))
    // A model is the same bytes when made again from its set's number.
    const make = (n: number) => freshModels(n, true).find(([name]) => name.includes('-animated-'))?.[1]
    const io = new NodeIO()
    const a = await io.writeBinary(make(5)!())
    const b = await io.writeBinary(make(5)!())
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true)
  })
})
