// What the query functions read through: each model's collections in its active generation. The
// generation is looked up again after a short while, so readers follow a rebuild's switch-over.
import { activeGeneration, generationCollection } from './generations.ts'
import type { Doc, DocumentCollection, ReadStore } from './read-store.ts'

export class ReadModels {
  readonly store: ReadStore
  readonly #ttlMs: number
  readonly #generations = new Map<string, { generation: number; until: number }>()

  constructor(store: ReadStore, { generationTtlMs = 1000 }: { generationTtlMs?: number } = {}) {
    this.store = store
    this.#ttlMs = generationTtlMs
  }

  async collection<T extends Doc>(model: string, name: string): Promise<DocumentCollection<T>> {
    const now = Date.now()
    let cached = this.#generations.get(model)
    if (!cached || cached.until <= now) {
      cached = { generation: await activeGeneration(this.store, model), until: now + this.#ttlMs }
      this.#generations.set(model, cached)
    }
    return this.store.collection<T>(generationCollection(name, cached.generation))
  }
}
