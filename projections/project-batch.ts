// One batch of events into one generation of a model: load every document the batch touches (but
// those its own events create, where the store allows: DocRef.created in projector.ts), apply the
// events in order, write the changed documents (each guarded by its position), then move the
// checkpoint. A crash between the writes and the checkpoint replays the batch later,
// and the position guard makes that replay a no-op. Where another process may hold the model's
// lease, `mayWrite` is asked before each write: once it says no, nothing more of the batch is
// written (BatchFenced) and the checkpoint stays where it was.
import type { RecordedEvent } from '../domain/ports/event-store.ts'
import { checkpointKey, generationCollection } from './generations.ts'
import type { Projector } from './projector.ts'
import type { ReadStore } from './read-store.ts'
import { Workspace } from './workspace.ts'

/** The batch stopped before a write because its writer may no longer hold the model. */
export class BatchFenced extends Error {
  constructor(model: string) {
    super(
      `projection ${model}: the lease's fence failed before a write; the batch is left to the next holder`,
    )
    this.name = 'BatchFenced'
  }
}

export async function projectBatch(
  reads: ReadStore,
  projector: Projector,
  generation: number,
  events: readonly RecordedEvent[],
  mayWrite: () => boolean = () => true,
): Promise<void> {
  const last = events.at(-1)
  if (!last) return
  // Per collection, each touched id and whether the batch loads it: not when one of its events
  // creates it, where the store's guard keeps a copy already stored from a later event in place.
  const blind = reads.guardHoldsUnderRaces === true
  const wanted = new Map<string, Map<string, boolean>>()
  for (const event of events) {
    for (const { collection, id, created } of projector.touches(event)) {
      let ids = wanted.get(collection)
      if (!ids) {
        ids = new Map()
        wanted.set(collection, ids)
      }
      if (!ids.has(id)) ids.set(id, !(blind && created))
    }
  }
  const workspace = new Workspace()
  for (const [collection, ids] of wanted) {
    const load = [...ids].filter(([, loaded]) => loaded).map(([id]) => id)
    if (load.length === 0) continue
    workspace.load(
      collection,
      await reads.collection(generationCollection(collection, generation)).getMany(load),
    )
  }
  for (const event of events) projector.apply(event, workspace)
  const writes = [...workspace.changes()].map(([collection, docs]) => ({
    collection: generationCollection(collection, generation),
    docs,
  }))
  const checkpoint = { key: checkpointKey(projector.model, generation), value: last.position }
  const fence = () => {
    if (!mayWrite()) throw new BatchFenced(projector.model)
  }
  // One commit for the documents and the checkpoint where the store can; otherwise the checkpoint
  // moves last, after every document is written.
  fence()
  if (reads.putGuardedWithCounter) return reads.putGuardedWithCounter(writes, checkpoint)
  for (const { collection, docs } of writes) {
    await reads.collection(collection).putGuarded(docs)
    fence()
  }
  await reads.setCounter(checkpoint.key, checkpoint.value)
}
