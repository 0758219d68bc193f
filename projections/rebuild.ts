// Rebuilds a read model from position zero into a fresh generation beside the live one, switches
// the model over once the new generation has caught up with the store's head, and drops the
// generations before the one it replaced (that one stays for a runner that has not switched yet).
import type { EventStore } from '../domain/ports/event-store.ts'
import {
  activateGeneration,
  activeGeneration,
  dropGeneration,
  prepareGeneration,
  storedGenerations,
} from './generations.ts'
import { projectBatch } from './project-batch.ts'
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'

export interface RebuildResult {
  model: string
  generation: number
  position: number
  events: number
  seconds: number
}

export async function rebuildModel(
  store: EventStore,
  reads: ReadStore,
  projector: Projector,
  { batchSize = 2000 }: { batchSize?: number } = {},
): Promise<RebuildResult> {
  const started = performance.now()
  const previous = await activeGeneration(reads, projector.model)
  const generation = Math.max(previous, ...(await storedGenerations(reads, projector))) + 1
  await prepareGeneration(reads, projector, generation)
  let position = 0
  let events = 0
  for (;;) {
    const page = await store.readAll(position, batchSize)
    if (page.length === 0) break
    await projectBatch(reads, projector, generation, page)
    position = page.at(-1)!.position
    events += page.length
  }
  await activateGeneration(reads, projector.model, generation)
  for (const old of await storedGenerations(reads, projector)) {
    if (old < previous) await dropGeneration(reads, projector, old)
  }
  return {
    model: projector.model,
    generation,
    position,
    events,
    seconds: (performance.now() - started) / 1000,
  }
}
