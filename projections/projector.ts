// A projector turns events into documents of one read model. It names the documents an event
// touches (so a batch loads them in one round trip) and changes them through a Workspace, which
// skips any document that already applied the event.
import type { RecordedEvent } from '../domain/ports/event-store.ts'
import type { Doc, IndexSpec } from './read-store.ts'
import type { Workspace } from './workspace.ts'

export interface DocRef {
  collection: string
  id: string
  /**
   * This event is the one that creates the document (a job's JobCreated, a ledger entry's own
   * event): no earlier event can have written it, so on a store whose guard holds against racing
   * writers (ReadStore.guardHoldsUnderRaces) a batch whose first touch of it is this one loads
   * nothing. Should it be stored already (a batch replayed), the guard keeps the stored copy.
   */
  created?: boolean
}

export interface Projector {
  /** The read model's name: checkpoints, generations and the rebuild CLI use it. */
  readonly model: string
  /** The model's collections and their indexes. */
  readonly collections: Readonly<Record<string, readonly IndexSpec[]>>
  /**
   * Another model this one never gets ahead of: a batch is written only once that model has
   * applied it, so whatever this model shows, that one shows too (running together, startProjections).
   */
  readonly follows?: string
  touches(event: RecordedEvent): DocRef[]
  apply(event: RecordedEvent, workspace: Workspace): void
}

/** A document's content without the bookkeeping the workspace fills in. */
export type Content<T extends Doc> = Omit<T, 'id' | 'position'>
