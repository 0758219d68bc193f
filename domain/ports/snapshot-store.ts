// Where serialized snapshots of folded stream state are kept (app/stream-snapshots.ts uses them so a
// long stream is not folded from its start for every decision). Adapter: the read store.

export interface StoredSnapshot {
  /** Revision of the last event folded into the state. */
  revision: number
  /** Global position of that event. */
  position: number
  state: Buffer
}

export interface SnapshotStore {
  load(streamId: string): Promise<StoredSnapshot | null>
  save(streamId: string, snapshot: StoredSnapshot): Promise<void>
}
