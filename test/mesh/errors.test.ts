// Malformed, unsupported and oversized models fail with the right code and a hint, never a crash.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { splitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { runner as inspect } from '../../workers/tools/inspect_3d_model.ts'
import { runner as split } from '../../workers/tools/split_3d_model.ts'
import { context, hasCorpus, inputFile, malformedFiles } from './corpus.ts'

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(DomainError)
  return error as DomainError
}

/** The separate-buffer glTF cannot be read from a single upload; every other malformed file is an invalid mesh. */
const expectedCode = (file: string) => (file.endsWith('.gltf') ? 'unsupported_format' : 'invalid_mesh')

describe.runIf(hasCorpus)('mesh errors', () => {
  test.each(malformedFiles)('%s fails cleanly in measure and run', async (file) => {
    const measured = await failure(inspect.measure(await inputFile(file), {}))
    expect(measured.code).toBe(expectedCode(file))
    expect(measured.hint).toBeTruthy()
    const ran = await failure(split.run(await inputFile(file), splitOptions.parse({}), await context()))
    expect(ran.code).toBe(expectedCode(file))
  })

  test('a model with infinite coordinates everywhere is an invalid mesh', async () => {
    const e = await failure(inspect.measure(await inputFile('glb/BoxWithInfinites.glb'), {}))
    expect(e.code).toBe('invalid_mesh')
  })

  test('a model above the tool limit is limit_exceeded', async () => {
    const e = await failure(inspect.measure(await inputFile('ply/igea.ply'), {}))
    expect(e.code).toBe('limit_exceeded')
    expect(e.message).toMatch(/200000/)
  })

  test('a file type that is not a model is unsupported_format', async () => {
    const ctx = await context()
    const path = join(ctx.outDir, 'notes.txt')
    await writeFile(path, 'not a model')
    const e = await failure(inspect.measure({ path, name: 'notes.txt', bytes: 11, extension: 'txt' }, {}))
    expect(e.code).toBe('unsupported_format')
  })

  test('a missing input is unsupported_format', async () => {
    expect((await failure(inspect.measure(null, {}))).code).toBe('unsupported_format')
  })
})
