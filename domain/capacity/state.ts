import type { CapacityEvent } from './events.ts'

export interface CapacityState {
  /** Reservations still held, by job id. */
  held: Set<string>
  released: Set<string>
  /** The latest job reserved for each tool: admission looks at it to learn about provider limits. */
  latestJobByTool: Map<string, string>
}

export const initialCapacityState = (): CapacityState => ({
  held: new Set(),
  released: new Set(),
  latestJobByTool: new Map(),
})

export function evolveCapacity(state: CapacityState, event: CapacityEvent): CapacityState {
  switch (event.type) {
    case 'CapacityReserved':
      return {
        ...state,
        held: new Set(state.held).add(event.data.jobId),
        latestJobByTool: new Map(state.latestJobByTool).set(event.data.tool, event.data.jobId),
      }
    case 'CapacityReleased': {
      const held = new Set(state.held)
      held.delete(event.data.jobId)
      return { ...state, held, released: new Set(state.released).add(event.data.jobId) }
    }
  }
}
