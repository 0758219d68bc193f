// The housekeeper's checkpoint, kept in the read store beside the read models (a document in SQLite
// or MongoDB), so whichever process holds the housekeeping lease next resumes from it. Written only
// forward: a late write from a process that lost the lease cannot move it back.
import type { Doc, ReadStore } from '../projections/read-store.ts'
import type { CheckpointStore, HousekeepingCheckpoint } from './housekeeper.ts'

const collection = 'housekeeping'
const documentId = 'checkpoint'

interface CheckpointDoc extends Doc {
  state: string
}

export function housekeepingCheckpoints(reads: ReadStore): CheckpointStore {
  const docs = () => reads.collection<CheckpointDoc>(collection)
  return {
    async load() {
      const doc = await docs().get(documentId)
      return doc ? (JSON.parse(doc.state) as HousekeepingCheckpoint) : null
    },
    async save(checkpoint) {
      // Stored as one string: MongoDB and SQLite keep it byte for byte, whatever its keys look like.
      await docs().putGuarded([
        { id: documentId, position: checkpoint.position, state: JSON.stringify(checkpoint) },
      ])
    },
  }
}
