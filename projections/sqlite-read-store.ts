// Read models in one SQLite file: a table per collection (id, position, the document as JSON),
// indexes on JSON expressions. The file is separate from the event store's: read models can be
// thrown away and rebuilt, so they are written with synchronous=NORMAL.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
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

const table = (name: string) => `"doc_${checkName(name)}"`
const field = (name: string) => `json_extract(doc, '$.${checkField(name)}')`
const sqlValue = (value: Scalar): SQLInputValue => (typeof value === 'boolean' ? Number(value) : value)
const chunkSize = 500
/** How often the checkpointer thread checkpoints, and the WAL size (pages) at which commits still do. */
const checkpointIntervalMs = 250
const backstopCheckpointPages = 20_000

/** Documents kept per collection by get(); past this the collection's cache starts over. */
const maxCachedDocs = 20_000

/**
 * Whether documents read earlier may still be served from memory. A lookup by id costs a read
 * transaction (lock calls on the WAL index, a B-tree descent): about 10 µs, a tenth of a job read.
 * This connection's own writes drop the documents they touch; any other connection's commit (another
 * process, a rebuild) changes SQLite's data_version, which is looked at once per turn of the event
 * loop, and empties every cache. So a document is never older than the turn's start.
 */
class CacheValidity {
  readonly #dataVersion: StatementSync
  #version: number | null = null
  #checkedThisTurn = false
  /** Bumped when another connection has committed: every collection's cache is stale. */
  era = 0

  constructor(db: DatabaseSync) {
    this.#dataVersion = db.prepare('PRAGMA data_version')
  }

  check(): number {
    if (this.#checkedThisTurn) return this.era
    this.#checkedThisTurn = true
    setImmediate(() => {
      this.#checkedThisTurn = false
    })
    const version = (this.#dataVersion.get() as { data_version: number }).data_version
    if (version !== this.#version) {
      this.#version = version
      this.era++
    }
    return this.era
  }
}

/** Numbers every write of this process, whatever the collection: a dropped and re-made collection never repeats a stamp. */
let writeSerial = 0

/** A document read earlier: its stored JSON (parsed for each get) and, once peeked, a frozen copy. */
interface CachedDoc<T> {
  json: string | null
  shared?: Readonly<T> | null
}

class SqliteCollection<T extends Doc> implements DocumentCollection<T> {
  readonly #db: DatabaseSync
  readonly #table: string
  readonly #validity: CacheValidity
  /** Documents by id, valid in #cacheEra. */
  readonly #cached = new Map<string, CachedDoc<T>>()
  #cacheEra = -1
  /** The serial number of this connection's last write to the collection: with the era, the change stamp. */
  #lastWrite = 0
  /**
   * For each owner field asked about, the serial of the last write per value, and the serial at
   * which that record began (what a value written only before then, or never, answers).
   */
  readonly #lastWriteByOwner = new Map<string, { since: number; byValue: Map<Scalar, number> }>()
  readonly #byId: StatementSync
  readonly #upsert: StatementSync
  /** find() builds its SQL from the query's shape; the statements are compiled once per shape. */
  readonly #statements = new Map<string, StatementSync>()

  constructor(db: DatabaseSync, name: string, validity: CacheValidity) {
    this.#db = db
    this.#table = table(name)
    this.#validity = validity
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${this.#table} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, doc TEXT NOT NULL)`,
    )
    this.#byId = db.prepare(`SELECT doc FROM ${this.#table} WHERE id = ?`)
    this.#upsert = db.prepare(
      `INSERT INTO ${this.#table} (id, position, doc) VALUES (?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET position = excluded.position, doc = excluded.doc
       WHERE excluded.position > position`,
    )
  }

  #read(id: string): CachedDoc<T> {
    const era = this.#validity.check()
    if (era !== this.#cacheEra) {
      this.#cached.clear()
      this.#cacheEra = era
    }
    let cached = this.#cached.get(id)
    if (cached === undefined) {
      cached = { json: (this.#byId.get(id) as { doc: string } | undefined)?.doc ?? null }
      if (this.#cached.size >= maxCachedDocs) this.#cached.clear()
      this.#cached.set(id, cached)
    }
    return cached
  }

  async get(id: string): Promise<T | null> {
    const { json } = this.#read(id)
    return json === null ? null : (JSON.parse(json) as T)
  }

  async peek(id: string): Promise<Readonly<T> | null> {
    const cached = this.#read(id)
    if (cached.shared === undefined)
      cached.shared = cached.json === null ? null : deepFreeze(JSON.parse(cached.json) as T)
    return cached.shared
  }

  changeStamp(owner?: { field: string; value: Scalar }): string {
    const era = this.#validity.check()
    if (!owner) return `${era}.${this.#lastWrite}`
    let record = this.#lastWriteByOwner.get(owner.field)
    if (!record) {
      record = { since: writeSerial, byValue: new Map() }
      this.#lastWriteByOwner.set(owner.field, record)
    }
    return `${era}.${record.byValue.get(owner.value) ?? record.since}`
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    const out: T[] = []
    for (let i = 0; i < ids.length; i += chunkSize) {
      const chunk = ids.slice(i, i + chunkSize)
      const sql = `SELECT doc FROM ${this.#table} WHERE id IN (${chunk.map(() => '?').join(',')})`
      let statement = this.#statements.get(sql)
      if (!statement) {
        statement = this.#db.prepare(sql)
        this.#statements.set(sql, statement)
      }
      for (const row of statement.all(...chunk) as { doc: string }[]) out.push(JSON.parse(row.doc) as T)
    }
    return out
  }

  async putGuarded(docs: readonly T[]): Promise<void> {
    if (docs.length === 0) return
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      this.upsertInTransaction(docs)
      this.#db.exec('COMMIT')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      throw error
    }
  }

  /** putGuarded's writes, inside a transaction the caller holds. */
  upsertInTransaction(docs: readonly T[]): void {
    this.#lastWrite = ++writeSerial
    for (const [field, record] of this.#lastWriteByOwner) {
      // Past this many owners the record starts over: every owner's stamp then changes once.
      if (record.byValue.size >= maxCachedDocs) {
        record.byValue.clear()
        record.since = writeSerial
      }
      for (const doc of docs)
        record.byValue.set((doc as Record<string, unknown>)[field] as Scalar, writeSerial)
    }
    for (const doc of docs) {
      this.#cached.delete(doc.id)
      this.#upsert.run(doc.id, doc.position, JSON.stringify(doc))
    }
  }

  async find(query: Query): Promise<T[]> {
    const { where, params } = filterOf(query)
    let sql = `SELECT doc FROM ${this.#table}${where}`
    if (query.orderBy)
      sql += ` ORDER BY ${field(query.orderBy.field)} ${query.orderBy.direction === 'desc' ? 'DESC' : 'ASC'}`
    if (query.limit !== undefined) {
      sql += ' LIMIT ?'
      params.push(query.limit)
    }
    return (this.#statement(sql).all(...params) as { doc: string }[]).map((row) => JSON.parse(row.doc) as T)
  }

  async countBy(query: Filter, by: string): Promise<Record<string, number>> {
    const { where, params } = filterOf(query)
    const key = field(by)
    const sql = `SELECT ${key} AS value, COUNT(*) AS count FROM ${this.#table}${where}${where ? ' AND' : ' WHERE'} ${key} IS NOT NULL GROUP BY value`
    const counts: Record<string, number> = {}
    for (const row of this.#statement(sql).all(...params) as { value: SQLOutputValue; count: number }[])
      counts[String(row.value)] = row.count
    return counts
  }

  async sum(query: Filter, of: string): Promise<{ count: number; sum: number }> {
    const { where, params } = filterOf(query)
    const sql = `SELECT COUNT(*) AS count, TOTAL(${field(of)}) AS sum FROM ${this.#table}${where}`
    const row = this.#statement(sql).get(...params) as { count: number; sum: number }
    return { count: row.count, sum: row.sum }
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }
}

/** A query's WHERE clause (empty, or starting with a space) and its parameters. */
function filterOf(query: Filter): {
  where: string
  params: SQLInputValue[]
} {
  const conditions: string[] = []
  const params: SQLInputValue[] = []
  for (const [name, value] of Object.entries(query.where ?? {})) {
    if (value === null) conditions.push(`${field(name)} IS NULL`)
    else {
      conditions.push(`${field(name)} = ?`)
      params.push(sqlValue(value))
    }
  }
  if (query.below) {
    conditions.push(`${field(query.below.field)} < ?`)
    params.push(query.below.value)
  }
  if (query.above) {
    conditions.push(`${field(query.above.field)} > ?`)
    params.push(query.above.value)
  }
  return { where: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '', params }
}

export class SqliteReadStore implements ReadStore {
  readonly #db: DatabaseSync
  readonly #collections = new Map<string, SqliteCollection<Doc>>()
  #getCounter: StatementSync | undefined
  #setCounter: StatementSync | undefined
  #claimLease: StatementSync | undefined
  #readLease: StatementSync | undefined
  readonly #validity: CacheValidity
  #checkpointer: Worker | null = null
  #pendingBatches: {
    writes: readonly { collection: string; docs: readonly Doc[] }[]
    counter: { key: string; value: number }
    resolve: () => void
    reject: (error: unknown) => void
  }[] = []

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, { timeout: 30_000 })
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `)
    this.#validity = new CacheValidity(this.#db)
    if (path !== ':memory:') {
      // Checkpoints move to a thread of their own (sqlite-checkpointer.ts); this connection keeps a
      // far threshold only as a backstop, should that thread fall behind.
      this.#db.exec(`PRAGMA wal_autocheckpoint = ${backstopCheckpointPages}`)
      this.#checkpointer = new Worker(new URL('./sqlite-checkpointer.ts', import.meta.url), {
        workerData: { path, intervalMs: checkpointIntervalMs },
      })
      this.#checkpointer.unref()
    }
  }

  collection<T extends Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name)
    if (!collection) {
      collection = new SqliteCollection<Doc>(this.#db, name, this.#validity)
      this.#collections.set(name, collection)
    }
    return collection as unknown as DocumentCollection<T>
  }

  async ensureIndexes(name: string, indexes: readonly IndexSpec[]): Promise<void> {
    this.collection(name)
    for (const fields of indexes) {
      const indexName = `"ix_${checkName(name)}_${fields.map(checkField).join('_')}"`
      this.#db.exec(
        `CREATE INDEX IF NOT EXISTS ${indexName} ON ${table(name)} (${fields.map(field).join(', ')})`,
      )
    }
  }

  async dropCollection(name: string): Promise<void> {
    this.#collections.delete(name)
    this.#db.exec(`DROP TABLE IF EXISTS ${table(name)}`)
  }

  async listCollections(): Promise<string[]> {
    const rows = this.#db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'doc\\_%' ESCAPE '\\'")
      .all() as {
      name: string
    }[]
    return rows.map((row) => row.name.slice('doc_'.length)).sort()
  }

  async getCounter(key: string): Promise<number | null> {
    this.#getCounter ??= this.#db.prepare('SELECT value FROM counters WHERE key = ?')
    const row = this.#getCounter.get(key) as { value: number } | undefined
    return row?.value ?? null
  }

  async setCounter(key: string, value: number): Promise<void> {
    this.#setCounter ??= this.#db.prepare(
      'INSERT INTO counters (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
    this.#setCounter.run(key, value)
  }

  /**
   * Each model's runner writes its batch and checkpoint here after the same event page: the batches
   * that arrive in one turn of the event loop share one transaction, so a page costs one commit
   * instead of one per model (each batch still lands whole with its checkpoint, or not at all).
   */
  putGuardedWithCounter(
    writes: readonly { collection: string; docs: readonly Doc[] }[],
    counter: { key: string; value: number },
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pendingBatches.push({ writes, counter, resolve, reject })
      if (this.#pendingBatches.length === 1) setImmediate(() => this.#commitPendingBatches())
    })
  }

  #commitPendingBatches(): void {
    const batches = this.#pendingBatches
    this.#pendingBatches = []
    if (batches.length === 0) return
    try {
      this.#setCounter ??= this.#db.prepare(
        'INSERT INTO counters (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      this.#db.exec('BEGIN IMMEDIATE')
      for (const { writes, counter } of batches) {
        for (const { collection, docs } of writes)
          (this.collection(collection) as SqliteCollection<Doc>).upsertInTransaction(docs)
        this.#setCounter.run(counter.key, counter.value)
      }
      this.#db.exec('COMMIT')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      for (const batch of batches) batch.reject(error)
      return
    }
    for (const batch of batches) batch.resolve()
  }

  async claimLease(name: string, holder: string, now: number, expiresAt: number): Promise<LeaseHolder> {
    this.#claimLease ??= this.#db.prepare(
      `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
       RETURNING holder, expires_at`,
    )
    this.#readLease ??= this.#db.prepare('SELECT holder, expires_at FROM leases WHERE name = ?')
    const row = (this.#claimLease.get(name, holder, expiresAt, now) ?? this.#readLease.get(name)) as {
      holder: string
      expires_at: number
    }
    return { holder: row.holder, expiresAt: row.expires_at }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    this.#db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
  }

  async close(): Promise<void> {
    await this.#checkpointer?.terminate()
    this.#checkpointer = null
    if (this.#db.isOpen) this.#commitPendingBatches()
    if (this.#db.isOpen) this.#db.close()
  }
}
