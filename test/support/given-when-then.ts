// Specification-style tests for deciders: given(past events).when(command).then(events | error).
// then() compares whole events; a partial match is thenMatching(expected, because).
import { expect } from 'vitest'
import { DomainError, type ErrorCode } from '../../domain/errors.ts'

interface Spec<State, Command, Event> {
  initialState(): State
  evolve(state: State, event: Event): State
  decide(command: Command, state: State): Event[]
}

export function specFor<State, Command, Event>(decider: Spec<State, Command, Event>) {
  return (given: Event[]) => ({
    when(command: Command) {
      const state = given.reduce(decider.evolve, decider.initialState())
      const run = () => decider.decide(command, state)
      return {
        /**
         * The decided events are exactly `expected`, whole: type and every field of data. A function
         * receives the events for checks of its own.
         */
        // biome-ignore lint/suspicious/noThenProperty: given/when/then is the specification vocabulary; the object is never awaited
        then(expected: Event[] | ((events: Event[]) => void)) {
          const events = run()
          if (typeof expected === 'function') expected(events)
          else expect(events).toEqual(expected)
          return events
        },
        /**
         * A partial match, for when the rest of each event is not the point of the test (or is not
         * known to it): `because` says why, so a reader knows the gap is deliberate.
         */
        thenMatching(expected: { type: string; data?: Record<string, unknown> }[], because: string) {
          const events = run()
          expect(events, because).toMatchObject(expected)
          return events
        },
        thenNothing() {
          expect(run()).toEqual([])
        },
        thenError(code: ErrorCode, message?: RegExp) {
          let thrown: unknown
          try {
            run()
          } catch (error) {
            thrown = error
          }
          expect(thrown).toBeInstanceOf(DomainError)
          expect((thrown as DomainError).code).toBe(code)
          if (message) expect((thrown as DomainError).message).toMatch(message)
          return thrown as DomainError
        },
      }
    },
  })
}
