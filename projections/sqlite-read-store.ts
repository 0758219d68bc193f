// Read models in one SQLite file: a table per collection (id, position, the document as JSON),
// indexes on JSON expressions. The file is separate from the event store's: read models can be
// thrown away and rebuilt, so they are written with synchronous=NORMAL.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import {
  checkField,
  checkName,
  type Doc,
  type DocumentCollection,
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

class SqliteCollection<T extends Doc> implements DocumentCollection<T> {
  readonly #db: DatabaseSync
  readonly #table: string
  readonly #byId: StatementSync
  readonly #upsert: StatementSync
  /** find() builds its SQL from the query's shape; the statements are compiled once per shape. */
  readonly #statements = new Map<string, StatementSync>()

  constructor(db: DatabaseSync, name: string) {
    this.#db = db
    this.#table = table(name)
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

  async get(id: string): Promise<T | null> {
    const row = this.#byId.get(id) as { doc: string } | undefined
    return row ? (JSON.parse(row.doc) as T) : null
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    const out: T[] = []
    for (let i = 0; i < ids.length; i += chunkSize) {
      const chunk = ids.slice(i, i + chunkSize)
      const sql = `SELECT doc FROM ${this.#table} WHERE id IN (${chunk.map(() => '?').join(',')})`
      for (const row of this.#db.prepare(sql).all(...chunk) as { doc: string }[])
        out.push(JSON.parse(row.doc) as T)
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
    for (const doc of docs) this.#upsert.run(doc.id, doc.position, JSON.stringify(doc))
  }

  async find(query: Query): Promise<T[]> {
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
    let sql = `SELECT doc FROM ${this.#table}`
    if (conditions.length > 0) sql += ` WHERE ${conditions.join(' AND ')}`
    if (query.orderBy)
      sql += ` ORDER BY ${field(query.orderBy.field)} ${query.orderBy.direction === 'desc' ? 'DESC' : 'ASC'}`
    if (query.limit !== undefined) {
      sql += ' LIMIT ?'
      params.push(query.limit)
    }
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return (statement.all(...params) as { doc: string }[]).map((row) => JSON.parse(row.doc) as T)
  }
}

export class SqliteReadStore implements ReadStore {
  readonly #db: DatabaseSync
  readonly #collections = new Map<string, SqliteCollection<Doc>>()
  #getCounter: StatementSync | undefined
  #setCounter: StatementSync | undefined
  #claimLease: StatementSync | undefined
  #readLease: StatementSync | undefined

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, { timeout: 30_000 })
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `)
  }

  collection<T extends Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name)
    if (!collection) {
      collection = new SqliteCollection<Doc>(this.#db, name)
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

  async putGuardedWithCounter(
    writes: readonly { collection: string; docs: readonly Doc[] }[],
    counter: { key: string; value: number },
  ): Promise<void> {
    const collections = writes.map(({ collection, docs }) => ({
      target: this.collection(collection) as SqliteCollection<Doc>,
      docs,
    }))
    this.#setCounter ??= this.#db.prepare(
      'INSERT INTO counters (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      for (const { target, docs } of collections) target.upsertInTransaction(docs)
      this.#setCounter.run(counter.key, counter.value)
      this.#db.exec('COMMIT')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      throw error
    }
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
    if (this.#db.isOpen) this.#db.close()
  }
}
