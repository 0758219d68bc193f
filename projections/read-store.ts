// The read side's storage port: named collections of JSON documents, each document carrying the
// global position of the last event that changed it. Writes are guarded by that position, so
// replaying events a document has already seen changes nothing, and no write ever needs a
// transaction across documents. Adapters: SQLite (embedded) and MongoDB.

export interface Doc {
  id: string
  /** Global position of the last event applied to this document. */
  position: number
}

export type Scalar = string | number | boolean | null

export interface Query {
  /** Equality on top-level fields. */
  where?: Record<string, Scalar>
  /** Only documents whose numeric `field` is strictly below `value`. */
  below?: { field: string; value: number }
  /** Only documents whose numeric `field` is strictly above `value`. */
  above?: { field: string; value: number }
  orderBy?: { field: string; direction: 'asc' | 'desc' }
  limit?: number
}

/** The part of a query that picks documents, for answers that are not the documents themselves. */
export type Filter = Pick<Query, 'where' | 'below' | 'above'>

/** Top-level fields of a compound ascending index. */
export type IndexSpec = readonly string[]

export interface DocumentCollection<T extends Doc = Doc> {
  /** A copy of the document, the caller's to change. */
  get(id: string): Promise<T | null>
  /**
   * The document for reading only: frozen all the way down and possibly shared with other readers
   * (projections/frozen.ts), so a store that keeps documents in memory need not copy one per read.
   */
  peek(id: string): Promise<Readonly<T> | null>
  getMany(ids: readonly string[]): Promise<T[]>
  /** Stores each document unless the stored one has the same or a higher position. */
  putGuarded(docs: readonly T[]): Promise<void>
  find(query: Query): Promise<T[]>
  /**
   * How many documents match, by the value of one of their fields (documents without it are not
   * counted): an answer in the store, where find() would carry every document back to be counted.
   */
  countBy(query: Filter, field: string): Promise<Record<string, number>>
  /** How many documents match and the sum of one of their numeric fields (0 where it is absent). */
  sum(query: Filter, field: string): Promise<{ count: number; sum: number }>
  /**
   * A value that changes whenever the collection's documents may have changed (this process's
   * writes, another connection's commits), so an answer derived from them can be kept while it holds;
   * null where the store cannot tell (another process may write unseen), and nothing may be kept.
   * With `owner`, only the documents whose `owner.field` is `owner.value` count: a field no document
   * ever changes once written (an account id), or a write that moved a document away would go unseen.
   */
  changeStamp(owner?: { field: string; value: Scalar }): string | null
}

export interface ReadStore {
  collection<T extends Doc>(name: string): DocumentCollection<T>
  /** Creates the collection's indexes if missing (idempotent). */
  ensureIndexes(name: string, indexes: readonly IndexSpec[]): Promise<void>
  dropCollection(name: string): Promise<void>
  listCollections(): Promise<string[]>
  /**
   * The position guard of putGuarded holds for every document even against writers racing it (one
   * statement per row in the store itself): a batch may then write a document its own event creates
   * without loading it first, since a copy already stored from a later event keeps its place.
   * MongoDB's own server would qualify; the MongoDB-wire server the tests run (FerretDB) lost
   * documents that way when two projectors overlapped in the cluster test, so the MongoDB store
   * does not claim it.
   */
  readonly guardHoldsUnderRaces?: boolean
  /** Small named numbers kept with the read models: checkpoints and active generations. */
  getCounter(key: string): Promise<number | null>
  setCounter(key: string, value: number): Promise<void>
  /**
   * Where the store has transactions: writes several collections' documents (each guarded by its
   * position, as putGuarded) and one counter in a single commit. A projector's batch then costs one
   * commit rather than one per collection plus one for its checkpoint.
   */
  putGuardedWithCounter?(
    writes: readonly { collection: string; docs: readonly Doc[] }[],
    counter: { key: string; value: number },
  ): Promise<void>
  /**
   * Takes or renews the named lease for `holder` until `expiresAt` (epoch ms) when it is free, expired
   * at `now`, or already the holder's; one atomic write. Answers who holds it afterwards.
   */
  claimLease(name: string, holder: string, now: number, expiresAt: number): Promise<LeaseHolder>
  /** Gives the lease up if `holder` has it, so another process need not wait for it to expire. */
  releaseLease(name: string, holder: string): Promise<void>
  close(): Promise<void>
}

export interface LeaseHolder {
  holder: string
  expiresAt: number
}

const namePattern = /^[a-z][a-z0-9_]*$/

/** Collection and field names end up in SQL identifiers; only plain lowercase names are accepted. */
export function checkName(name: string): string {
  if (!namePattern.test(name)) throw new Error(`Invalid read-store name: ${name}`)
  return name
}

const fieldPattern = /^[a-zA-Z][a-zA-Z0-9_]*$/

export function checkField(field: string): string {
  if (!fieldPattern.test(field)) throw new Error(`Invalid read-store field: ${field}`)
  return field
}
