// optimize_3d_model's remove_debris through the runner: a unit box with two specks floating
// beside it loses the specks, keeps all of its own faces, says so in the summary, and the GLB stays valid.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { optimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { runner as optimize } from '../../workers/tools/optimize_3d_model.ts'
import { context, listFiles, validatorErrors } from './corpus.ts'

/** OBJ lines of a closed axis-aligned box (12 triangles) whose vertices start at OBJ index `first`. */
function box(min: [number, number, number], size: number, first: number): string[] {
  const corners = Array.from({ length: 8 }, (_, i) => [
    min[0] + size * (i & 1),
    min[1] + size * ((i >> 1) & 1),
    min[2] + size * ((i >> 2) & 1),
  ])
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ]
  return [
    ...corners.map((c) => `v ${c.join(' ')}`),
    ...quads.flatMap(([a, b, c, d]) => [
      `f ${first + a!} ${first + b!} ${first + c!}`,
      `f ${first + a!} ${first + c!} ${first + d!}`,
    ]),
  ]
}

async function boxWithSpecks(dir: string) {
  const path = join(dir, 'debris.obj')
  const obj = [...box([0, 0, 0], 1, 1), ...box([2, 0, 0], 0.01, 9), ...box([0, 2, 0], 0.02, 17)]
  await writeFile(path, `${obj.join('\n')}\n`)
  return { path, name: 'debris.obj', bytes: obj.join('\n').length + 1, extension: 'obj' }
}

describe('optimize removes loose debris', () => {
  test('specks go, the box stays whole, the summary counts what went', async () => {
    const ctx = await context()
    const input = await boxWithSpecks(ctx.outDir)
    const { summary } = await optimize.run(input, optimizeOptions.parse({ remove_debris: 0.002 }), ctx)
    expect(summary.debris_removed).toEqual({ pieces: 2, faces: 24 })
    expect(summary.before).toMatchObject({ faces: 36 })
    expect(summary.after).toMatchObject({ faces: 12, vertices: 8 })
    expect((summary.notes as string[]).join(' ')).toMatch(/Removed 2 loose piece/)
    const [glb] = (await listFiles(ctx.outDir)).filter((f) => f.endsWith('.glb'))
    expect(await validatorErrors(join(ctx.outDir, glb!))).toEqual([])
  })

  test('off by default: every piece stays', async () => {
    const ctx = await context()
    const { summary } = await optimize.run(await boxWithSpecks(ctx.outDir), optimizeOptions.parse({}), ctx)
    expect(summary.debris_removed).toEqual({ pieces: 0, faces: 0 })
    expect(summary.after).toMatchObject({ faces: 36 })
  })

  test('the schema refuses a fraction above one half', () => {
    expect(optimizeOptions.safeParse({ remove_debris: 0.6 }).success).toBe(false)
  })
})
