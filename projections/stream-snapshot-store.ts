// Persisted stream snapshots (see domain/ports/snapshot-store.ts) kept in the read store beside the read models:
// one document per stream, written only forward (guarded by the stream revision it reflects).
// Dropping them loses nothing: the next decision folds the stream from its start and writes anew.
import type { SnapshotStore } from '../domain/ports/snapshot-store.ts'
import type { Doc, ReadStore } from './read-store.ts'

interface SnapshotDoc extends Doc {
  streamPosition: number
  state: string
}

export function readStoreSnapshots(reads: ReadStore): SnapshotStore {
  const docs = () => reads.collection<SnapshotDoc>('stream_snapshots')
  return {
    async load(streamId) {
      const doc = await docs().get(streamId)
      return doc
        ? { revision: doc.position, position: doc.streamPosition, state: Buffer.from(doc.state, 'base64') }
        : null
    },
    async save(streamId, snapshot) {
      await docs().putGuarded([
        {
          id: streamId,
          position: snapshot.revision,
          streamPosition: snapshot.position,
          state: snapshot.state.toString('base64'),
        },
      ])
    },
  }
}
