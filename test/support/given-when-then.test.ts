// The specification helper itself: then() holds the decider to whole events, so a test that names only
// an event's type cannot pass by accident; a partial match is thenMatching, with its reason.
import { describe, expect, it } from 'vitest'
import { specFor } from './given-when-then.ts'

type Counted = { type: 'Counted'; data: { by: number; total: number } }
const counter = specFor<number, { type: 'Count'; by: number }, Counted>({
  initialState: () => 0,
  evolve: (_total, event) => event.data.total,
  decide: (command, total) => [{ type: 'Counted', data: { by: command.by, total: total + command.by } }],
})

describe('given/when/then', () => {
  it('then() passes on the whole events', () => {
    counter([{ type: 'Counted', data: { by: 2, total: 2 } }])
      .when({ type: 'Count', by: 3 })
      .then([{ type: 'Counted', data: { by: 3, total: 5 } }])
  })

  it('then() fails when an event is named by its type alone, or a field differs', () => {
    const spec = counter([]).when({ type: 'Count', by: 1 })
    expect(() => spec.then([{ type: 'Counted' } as Counted])).toThrow()
    expect(() => spec.then([{ type: 'Counted', data: { by: 1, total: 2 } }])).toThrow()
  })

  it('thenMatching() is the explicit partial match', () => {
    counter([])
      .when({ type: 'Count', by: 1 })
      .thenMatching([{ type: 'Counted', data: { by: 1 } }], 'only the step matters here')
  })
})
