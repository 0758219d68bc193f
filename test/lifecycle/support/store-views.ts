// Views of an event store whose appends a test steps into, to stop a process at a chosen point.
import type { EventStore } from '../../../domain/ports/event-store.ts'

/**
 * `original` with `append` in place of its own, and appends to several streams made one after the
 * other through it (as the KurrentDB adapter does on servers without multi-stream append), so the
 * test sees each stream's part.
 */
export function storeAppendingThrough(original: EventStore, append: EventStore['append']): EventStore {
  const view: EventStore = Object.create(original)
  view.append = append
  view.appendMany = async (appends) => {
    const results = []
    for (const { streamId, events, expected } of appends)
      results.push(await view.append(streamId, events, expected))
    return results
  }
  return view
}
