// Reserve a unit of the day's generation capacity, or refuse with capacity_exhausted until the next
// UTC day; release it when the job it was for was never admitted. Both are idempotent per job id.
import { DomainError } from '../errors.ts'
import type { CapacityCommand, CapacityEvent } from './events.ts'
import type { CapacityState } from './state.ts'

const secondsUntilNextUtcDay = (now: number) =>
  Math.max(1, Math.ceil((86_400_000 - (now % 86_400_000)) / 1000))

export function decideCapacity(command: CapacityCommand, state: CapacityState): CapacityEvent[] {
  const at = new Date(command.data.now).toISOString()
  switch (command.type) {
    case 'ReserveCapacity': {
      const { jobId, tool, dailyLimit, now } = command.data
      if (state.held.has(jobId) || state.released.has(jobId)) return []
      if (dailyLimit !== null && state.held.size >= dailyLimit) {
        throw new DomainError(
          'capacity_exhausted',
          "Today's generation capacity of this service is used up.",
          {
            hint: 'Try again after midnight UTC.',
            retryAfterSeconds: secondsUntilNextUtcDay(now),
          },
        )
      }
      return [{ type: 'CapacityReserved', data: { jobId, tool, at } }]
    }
    case 'ReleaseCapacity':
      return state.held.has(command.data.jobId)
        ? [{ type: 'CapacityReleased', data: { jobId: command.data.jobId, at } }]
        : []
  }
}
