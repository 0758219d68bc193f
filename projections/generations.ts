// Each read model lives in a generation: its collections carry the generation in their names, and
// its checkpoint is kept per generation. A rebuild fills the next generation beside the live one,
// then switches the model's active generation with one counter write.
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'

const generationKey = (model: string) => `generation:${model}`
export const checkpointKey = (model: string, generation: number) => `checkpoint:${model}:${generation}`
export const generationCollection = (collection: string, generation: number) => `${collection}_g${generation}`

export async function activeGeneration(reads: ReadStore, model: string): Promise<number> {
  return (await reads.getCounter(generationKey(model))) ?? 1
}

export async function activateGeneration(reads: ReadStore, model: string, generation: number): Promise<void> {
  await reads.setCounter(generationKey(model), generation)
}

export async function readCheckpoint(reads: ReadStore, model: string, generation: number): Promise<number> {
  return (await reads.getCounter(checkpointKey(model, generation))) ?? 0
}

export async function prepareGeneration(
  reads: ReadStore,
  projector: Projector,
  generation: number,
): Promise<void> {
  for (const [collection, indexes] of Object.entries(projector.collections)) {
    await reads.ensureIndexes(generationCollection(collection, generation), indexes)
  }
}

/** Generations of the model present in the store, whatever their state. */
export async function storedGenerations(reads: ReadStore, projector: Projector): Promise<number[]> {
  const found = new Set<number>()
  const names = Object.keys(projector.collections)
  for (const stored of await reads.listCollections()) {
    const match = /^(.*)_g(\d+)$/.exec(stored)
    if (match && names.includes(match[1]!)) found.add(Number(match[2]))
  }
  return [...found].sort((a, b) => a - b)
}

export async function dropGeneration(
  reads: ReadStore,
  projector: Projector,
  generation: number,
): Promise<void> {
  for (const collection of Object.keys(projector.collections)) {
    await reads.dropCollection(generationCollection(collection, generation))
  }
}
