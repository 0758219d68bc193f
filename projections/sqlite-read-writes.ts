// The SQL of the read store's two guarded writes, shared by the store's connection and its writer
// thread (sqlite-read-writer.ts), so both write documents and checkpoints the same way.

/** A document into `table` (quoted), unless the stored one is at the same or a later position. */
export const upsertDocSql = (table: string) =>
  `INSERT INTO ${table} (id, position, doc) VALUES (?, ?, ?)
   ON CONFLICT (id) DO UPDATE SET position = excluded.position, doc = excluded.doc
   WHERE excluded.position > position`

/** A counter (a model's checkpoint, its active generation) set to a value. */
export const setCounterSql =
  'INSERT INTO counters (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'
