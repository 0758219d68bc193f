// The mesh core's options come from the catalog alone: coreOptions fills every default and the
// face limit from domain/tools, and the core itself refuses a wrongly typed, unknown or missing
// option with invalid_options instead of quietly using a default of its own.
import { describe, expect, test } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { getTool } from '../../domain/tools/catalog.ts'
import { minPartAreaByDetail } from '../../domain/tools/options/split_3d_model.ts'
import { coreOptions, meshBackend } from '../../native/mesh.ts'

/** A one-triangle OBJ, enough for the core to get past reading when the options are right. */
const triangle = Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')

describe('mesh core options', () => {
  test('defaults, dependent defaults and the face limit come from the catalog', () => {
    expect(coreOptions('split', { detail: 'high' })).toEqual({
      detail: 'high',
      max_parts: 64,
      min_part_faces: 0,
      min_part_area: minPartAreaByDetail.high,
      format: 'glb',
      preprocess: 'auto',
      segmented: true,
      max_faces: getTool('split_3d_model').limits.maxUnits,
    })
    expect(coreOptions('simplify', {})).toMatchObject({ target_ratio: 0.5, max_error: 0.01 })
    expect(coreOptions('simplify', { target_faces: 100 })).not.toHaveProperty('target_ratio')
    expect(coreOptions('optimize', {})).toEqual({
      compress: true,
      quantize: true,
      position_bits: 14,
      animation_error: null,
      simplify_ratio: 1,
      remove_debris: 0,
      textures: 'keep',
      max_texture_size: null,
      keep_nodes: false,
      instancing: false,
      max_faces: getTool('optimize_3d_model').limits.maxUnits,
    })
    expect(coreOptions('inspect', {})).toEqual({ max_faces: getTool('inspect_3d_model').limits.maxUnits })
  })

  test('a wrongly typed option is refused before the core with invalid_options naming it', () => {
    const error = (() => {
      try {
        coreOptions('split', { segmented: 'yes' })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('invalid_options')
    expect((error as DomainError).message).toMatch(/segmented/)
  })

  test.each([
    ['split', { segmented: 'yes' }, /split options: invalid type: string "yes", expected a boolean/],
    ['split', { colour: 'red' }, /split options: unknown field `colour`/],
    ['optimize', { compress: 1 }, /optimize options: invalid type: integer `1`, expected a boolean/],
    [
      'optimize',
      { position_bits: 14.5 },
      /optimize options: invalid type: floating point `14.5`, expected u8/,
    ],
    ['optimize', { position_bits: 9 }, /optimize options: position_bits is 9, outside 10..=16/],
    [
      'optimize',
      { animation_error: '0.001' },
      /optimize options: invalid type: string "0.001", expected f64/,
    ],
    [
      'optimize',
      { animation_error: 0.5 },
      /optimize options: animation_error is 0.5, outside 0.000001..=0.01/,
    ],
    ['simplify', { max_error: '0.1' }, /simplify options: invalid type: string "0.1"/],
    ['simplify', { animation_error: 'fine' }, /simplify options: invalid type: string "fine", expected f64/],
    ['simplify', { animation_error: 0 }, /simplify options: animation_error is 0, outside 0.000001..=0.01/],
    ['inspect', { max_faces: 'many' }, /inspect options: invalid type: string "many"/],
  ] as const)('the core itself refuses %s with %j', async (tool, bad, message) => {
    const options = { ...coreOptions(tool, {}), ...bad }
    const outcome = await meshBackend().addon.runTool(
      tool,
      triangle,
      'triangle.obj',
      'obj',
      JSON.stringify(options),
    )
    expect(outcome.error?.code).toBe('invalid_options')
    expect(outcome.error?.message).toMatch(message)
    expect(outcome.error?.hint).toBeTruthy()
  })

  test('the core refuses options without the face limit instead of assuming one', async () => {
    const { max_faces: _, ...withoutLimit } = coreOptions('optimize', {})
    const outcome = await meshBackend().addon.runTool(
      'optimize',
      triangle,
      'triangle.obj',
      'obj',
      JSON.stringify(withoutLimit),
    )
    expect(outcome.error?.code).toBe('invalid_options')
    expect(outcome.error?.message).toMatch(/missing field `max_faces`/)
  })
})
