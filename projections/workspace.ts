// The documents of one batch, loaded before the batch and written after it. `update` is the
// position guard: an event at or below a document's position leaves the document as it is.
import type { RecordedEvent } from '../domain/ports/event-store.ts'
import type { Content } from './projector.ts'
import type { Doc } from './read-store.ts'

export class Workspace {
  readonly #docs = new Map<string, Map<string, Doc>>()
  readonly #dirty = new Map<string, Set<string>>()

  load(collection: string, docs: readonly Doc[]): void {
    const byId = this.#collection(collection)
    for (const doc of docs) byId.set(doc.id, doc)
  }

  get<T extends Doc>(collection: string, id: string): T | undefined {
    return this.#docs.get(collection)?.get(id) as T | undefined
  }

  /**
   * Replaces the document with what `change` returns for it (undefined: no change). `change`
   * sees the current content, or undefined for a new document.
   */
  update<T extends Doc>(
    collection: string,
    id: string,
    event: RecordedEvent,
    change: (current: T | undefined) => Content<T> | undefined,
  ): void {
    const current = this.get<T>(collection, id)
    if (current && current.position >= event.position) return
    const next = change(current)
    if (next === undefined) return
    this.#collection(collection).set(id, { ...next, id, position: event.position })
    let dirty = this.#dirty.get(collection)
    if (!dirty) {
      dirty = new Set()
      this.#dirty.set(collection, dirty)
    }
    dirty.add(id)
  }

  /** The documents changed in this batch, by collection. */
  changes(): Map<string, Doc[]> {
    const out = new Map<string, Doc[]>()
    for (const [collection, ids] of this.#dirty) {
      const byId = this.#docs.get(collection)!
      out.set(
        collection,
        [...ids].map((id) => byId.get(id)!),
      )
    }
    return out
  }

  #collection(name: string): Map<string, Doc> {
    let byId = this.#docs.get(name)
    if (!byId) {
      byId = new Map()
      this.#docs.set(name, byId)
    }
    return byId
  }
}
