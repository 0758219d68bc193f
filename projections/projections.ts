// All read models kept live together: what a server starts, and the read-your-writes wait a
// surface uses after appending (every model has passed the append's position).
import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts'
import { projectors as allProjectors } from './models.ts'
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'
import { ProjectionRunner, type RunnerOptions } from './runner.ts'

export interface RunningProjections {
  readonly runners: readonly ProjectionRunner[]
  /** Resolves true once every model has applied `position`, false when `timeoutMs` ran out first. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>
  /** Per model: how many positions it is behind the store's head. */
  lag(): Promise<Record<string, number>>
  stop(): Promise<void>
}

export interface ProjectionsOptions extends Omit<RunnerOptions, 'onError' | 'onBatch' | 'follows'> {
  projectors?: readonly Projector[]
  /** A failed batch of one model (its runner resubscribes after it). */
  onError?(error: unknown, model: string): void
  /** A batch of one model about to be written, then written (RunnerOptions.onBatch, with the model). */
  onBatch?(phase: 'writing' | 'done', model: string, events: readonly RecordedEvent[]): void
}

export async function startProjections(
  store: EventStore,
  reads: ReadStore,
  { projectors = allProjectors, onError, onBatch, ...options }: ProjectionsOptions = {},
): Promise<RunningProjections> {
  // Models another follows start first, so the follower can be handed its runner.
  const ordered = [...projectors].sort(
    (a, b) => Number(a.follows !== undefined) - Number(b.follows !== undefined),
  )
  const byModel = new Map<string, ProjectionRunner>()
  const runners = ordered.map((projector) => {
    const followed = projector.follows === undefined ? undefined : byModel.get(projector.follows)
    const runner = new ProjectionRunner(store, reads, projector, {
      ...options,
      ...(followed ? { follows: followed } : {}),
      ...(onError ? { onError: (error: unknown) => onError(error, projector.model) } : {}),
      ...(onBatch
        ? {
            onBatch: (phase: 'writing' | 'done', events: readonly RecordedEvent[]) =>
              onBatch(phase, projector.model, events),
          }
        : {}),
    })
    byModel.set(projector.model, runner)
    return runner
  })
  for (const runner of runners) await runner.start()
  return {
    runners,
    async waitForPosition(position, timeoutMs) {
      const passed = await Promise.all(runners.map((runner) => runner.waitForPosition(position, timeoutMs)))
      return passed.every(Boolean)
    },
    async lag() {
      const head = await store.headPosition()
      return Object.fromEntries(runners.map((runner) => [runner.model, Math.max(0, head - runner.position)]))
    },
    async stop() {
      // Followers first: a follower's last batch may still wait for the model it follows.
      for (const runner of [...runners].reverse()) await runner.stop()
    },
  }
}
