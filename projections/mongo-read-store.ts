// Read models in MongoDB: a collection per read-model collection (`doc_` prefix), the document id
// as `_id`, indexes declared by the projectors. A guarded write is a replace-or-insert filtered on
// a lower position: when the stored document is as new or newer, the filter matches nothing, the
// upsert's insert collides on `_id`, and that duplicate-key error means "already applied". No write
// spans documents, so no transaction is needed (FerretDB has none).
//
// FerretDB 1.x on SQLite (told by buildInfo) answers an update command by opening one query per
// update and keeping every one open until the whole command ends, each on its own connection of a
// 100-connection pool, and the write of an update needs one connection more. One bulk write of 100
// or more updates (a projector catching up writes hundreds) took the whole pool, waited on itself,
// and the server hung for every client. Against FerretDB, writes go in commands of a few updates.
import { type AnyBulkWriteOperation, type Db, type Document, MongoBulkWriteError, MongoClient } from 'mongodb'
import { deepFreeze } from './frozen.ts'
import {
  checkField,
  checkName,
  type Doc,
  type DocumentCollection,
  type Filter,
  type IndexSpec,
  type LeaseHolder,
  type Query,
  type ReadStore,
  type Scalar,
} from './read-store.ts'

const duplicateKey = 11000
const namespaceNotFound = 26
const prefix = 'doc_'

type Stored = Document & { _id: string; position: number }

const toDoc = <T extends Doc>({ _id, ...rest }: Stored): T => ({ id: _id, ...rest }) as unknown as T

function toStored(doc: Doc): Stored {
  const { id, ...rest } = doc
  return { _id: id, ...rest }
}

/**
 * Updates per command against FerretDB: the five projectors writing at once hold at most 40 of its
 * 100 connections, which leaves the rest to every other client.
 */
const ferretDbUpdatesPerCommand = 8

class MongoCollection<T extends Doc> implements DocumentCollection<T> {
  readonly #db: Db
  readonly #name: string
  readonly #updatesPerCommand: number

  constructor(db: Db, name: string, updatesPerCommand: number) {
    this.#db = db
    this.#name = prefix + checkName(name)
    this.#updatesPerCommand = updatesPerCommand
  }

  get #collection() {
    return this.#db.collection<Stored>(this.#name)
  }

  async get(id: string): Promise<T | null> {
    const found = await this.#collection.findOne({ _id: id })
    return found ? toDoc<T>(found) : null
  }

  async peek(id: string): Promise<Readonly<T> | null> {
    return deepFreeze(await this.get(id))
  }

  /** Other processes write the same collections unseen: nothing derived from them may be kept. */
  changeStamp(_owner?: { field: string; value: Scalar }): null {
    return null
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return []
    const found = await this.#collection.find({ _id: { $in: [...ids] } }).toArray()
    return found.map((stored) => toDoc<T>(stored))
  }

  async putGuarded(docs: readonly T[]): Promise<void> {
    if (docs.length === 0) return
    const operations: AnyBulkWriteOperation<Stored>[] = docs.map((doc) => {
      const stored = toStored(doc)
      return {
        replaceOne: {
          filter: { _id: stored._id, position: { $lt: stored.position } },
          replacement: stored,
          upsert: true,
        },
      }
    })
    for (let start = 0; start < operations.length; start += this.#updatesPerCommand)
      await this.#bulkWrite(operations.slice(start, start + this.#updatesPerCommand))
  }

  async #bulkWrite(operations: AnyBulkWriteOperation<Stored>[]): Promise<void> {
    try {
      await this.#collection.bulkWrite(operations, { ordered: false })
    } catch (error) {
      const alreadyApplied =
        error instanceof MongoBulkWriteError &&
        Array.isArray(error.writeErrors) &&
        error.writeErrors.length > 0 &&
        error.writeErrors.every((e) => e.code === duplicateKey)
      if (!alreadyApplied) throw error
    }
  }

  async find(query: Query): Promise<T[]> {
    let cursor = this.#collection.find(filterOf(query))
    if (query.orderBy)
      cursor = cursor.sort({ [checkField(query.orderBy.field)]: query.orderBy.direction === 'desc' ? -1 : 1 })
    if (query.limit !== undefined) cursor = cursor.limit(query.limit)
    return (await cursor.toArray()).map((stored) => toDoc<T>(stored))
  }

  async countBy(query: Filter, by: string): Promise<Record<string, number>> {
    const key = checkField(by)
    // Documents without the field are not counted, whatever the query says of it.
    const filter = { $and: [filterOf(query), { [key]: { $ne: null } }] }
    const counts: Record<string, number> = {}
    for (const group of await this.#collection
      .aggregate<{ _id: unknown; count: number }>([
        { $match: filter },
        { $group: { _id: `$${key}`, count: { $sum: 1 } } },
      ])
      .toArray())
      counts[String(group._id)] = group.count
    return counts
  }

  async sum(query: Filter, of: string): Promise<{ count: number; sum: number }> {
    // Only the field travels back. Not a $group with $sum of the field: FerretDB 1.x answers 0.
    const field = checkField(of)
    let count = 0
    let sum = 0
    for await (const stored of this.#collection.find(filterOf(query), {
      projection: { _id: 0, [field]: 1 },
    })) {
      count++
      const value = stored[field]
      if (typeof value === 'number') sum += value
    }
    return { count, sum }
  }
}

/** A query's filter document. */
function filterOf(query: Filter): Document {
  const filter: Document = {}
  for (const [name, value] of Object.entries(query.where ?? {})) filter[checkField(name)] = value
  if (query.below)
    filter[checkField(query.below.field)] = { ...filter[query.below.field], $lt: query.below.value }
  if (query.above)
    filter[checkField(query.above.field)] = { ...filter[query.above.field], $gt: query.above.value }
  return filter
}

/** The database a MongoDB URL names (`mongodb://host/name?...`), or `kiln` when it names none. */
export function databaseOf(url: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url)?.[1] ?? ''
  return decodeURIComponent(path) || 'kiln'
}

export class MongoReadStore implements ReadStore {
  readonly #client: MongoClient
  readonly #db: Db
  /** The most updates one bulk write sends: unbounded for MongoDB itself, a few for FerretDB. */
  readonly #updatesPerCommand: number

  constructor(client: MongoClient, databaseName?: string, updatesPerCommand = Number.POSITIVE_INFINITY) {
    this.#client = client
    this.#db = client.db(databaseName)
    this.#updatesPerCommand = updatesPerCommand
  }

  /** Connects to `url`; the database is `databaseName` when given, else the URL's, else `kiln`. */
  static async connect(url: string, databaseName?: string): Promise<MongoReadStore> {
    const client = new MongoClient(url)
    await client.connect()
    const build = await client.db().admin().command({ buildInfo: 1 })
    const updatesPerCommand =
      'ferretdbVersion' in build ? ferretDbUpdatesPerCommand : Number.POSITIVE_INFINITY
    return new MongoReadStore(client, databaseName ?? databaseOf(url), updatesPerCommand)
  }

  collection<T extends Doc>(name: string): DocumentCollection<T> {
    return new MongoCollection<T>(this.#db, name, this.#updatesPerCommand)
  }

  async ensureIndexes(name: string, indexes: readonly IndexSpec[]): Promise<void> {
    const collection = this.#db.collection(prefix + checkName(name))
    if (indexes.length === 0) {
      // Creates the collection, so it is listed like the SQLite adapter's tables.
      await collection.createIndex({ position: 1 }, { name: 'position' })
      return
    }
    for (const fields of indexes) {
      const keys = Object.fromEntries(fields.map((field) => [checkField(field), 1]))
      await collection.createIndex(keys, { name: fields.join('_') })
    }
  }

  async dropCollection(name: string): Promise<void> {
    try {
      await this.#db.collection(prefix + checkName(name)).drop()
    } catch (error) {
      if ((error as { code?: number }).code !== namespaceNotFound) throw error
    }
  }

  async listCollections(): Promise<string[]> {
    const collections = await this.#db.listCollections({}, { nameOnly: true }).toArray()
    return collections
      .map((c) => c.name)
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length))
      .sort()
  }

  async getCounter(key: string): Promise<number | null> {
    const found = await this.#db.collection<{ _id: string; value: number }>('counters').findOne({ _id: key })
    return found?.value ?? null
  }

  async setCounter(key: string, value: number): Promise<void> {
    await this.#db
      .collection<{ _id: string; value: number }>('counters')
      .updateOne({ _id: key }, { $set: { value } }, { upsert: true })
  }

  async claimLease(name: string, holder: string, now: number, expiresAt: number): Promise<LeaseHolder> {
    const leases = this.#db.collection<{ _id: string; holder: string; expiresAt: number }>('leases')
    try {
      // Matches only a lease that is ours or expired; when another holds it, the upsert's insert
      // collides on _id, and that duplicate-key error means "held by someone else".
      await leases.updateOne(
        { _id: name, $or: [{ holder }, { expiresAt: { $lte: now } }] },
        { $set: { holder, expiresAt } },
        { upsert: true },
      )
    } catch (error) {
      if ((error as { code?: number }).code !== duplicateKey) throw error
    }
    const found = await leases.findOne({ _id: name })
    return found ? { holder: found.holder, expiresAt: found.expiresAt } : { holder: '', expiresAt: 0 }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.#db.collection<{ _id: string; holder: string }>('leases').deleteOne({ _id: name, holder })
  }

  /** Drops the whole database: for tests and throw-away rebuild targets. */
  async dropDatabase(): Promise<void> {
    await this.#db.dropDatabase()
  }

  async close(): Promise<void> {
    await this.#client.close()
  }
}
