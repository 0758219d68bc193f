// Specification-style tests for deciders: given(past events).when(command).then(events | error).
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
        // biome-ignore lint/suspicious/noThenProperty: given/when/then is the specification vocabulary; the object is never awaited
        then(expected: { type: string; data?: Record<string, unknown> }[] | ((events: Event[]) => void)) {
          const events = run()
          if (typeof expected === 'function') expected(events)
          else expect(events).toMatchObject(expected)
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
