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
import {
  allOwn,
  countChangesOf,
  createChangeSerial,
  newOwnCommits,
  readSerialSql,
} from './sqlite-change-serial.ts'
import type { WriterBatch } from './sqlite-read-writer.ts'
import { setCounterSql, upsertDocSql } from './sqlite-read-writes.ts'

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
 * This connection's own writes drop the documents they touch, and so do the writer thread's
 * (when they are sent, and again when they are answered); any other connection's commit (another
 * process, a rebuild) changes SQLite's data_version, which is looked at once per turn of the event
 * loop, and empties every cache unless the change serial shows every change since was the writer
 * thread's (sqlite-change-serial.ts). So a document is never older than the turn's start.
 */
class CacheValidity {
  readonly #dataVersion: StatementSync
  readonly #serial: StatementSync
  #version: number | null = null
  /** The change serial up to which every change is known: this process's own, or already counted as foreign. */
  #accounted: number
  #checkedThisTurn = false
  /** The writer thread's published commits; null without a writer thread. */
  own: BigInt64Array | null = null
  /** Bumped when another connection has committed: every collection's cache is stale. */
  era = 0

  constructor(db: DatabaseSync) {
    this.#dataVersion = db.prepare('PRAGMA data_version')
    this.#serial = db.prepare(readSerialSql)
    this.#accounted = this.#serialNow()
  }

  #serialNow(): number {
    return (this.#serial.get() as { serial: number }).serial
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
      const serial = this.#serialNow()
      if (serial !== this.#accounted && !(this.own && allOwn(this.own, this.#accounted, serial))) this.era++
      this.#accounted = serial
    }
    return this.era
  }

  /** Every cache starts over (a write whose outcome is unknown). */
  invalidate(): void {
    this.era++
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
    countChangesOf(db, this.#table)
    this.#byId = db.prepare(`SELECT doc FROM ${this.#table} WHERE id = ?`)
    this.#upsert = db.prepare(upsertDocSql(this.#table))
  }

  /** Empties the cache when another connection may have committed since it was filled. */
  #fresh(): void {
    const era = this.#validity.check()
    if (era !== this.#cacheEra) {
      this.#cached.clear()
      this.#cacheEra = era
    }
  }

  #remember(id: string, json: string | null): CachedDoc<T> {
    const cached = { json }
    if (this.#cached.size >= maxCachedDocs) this.#cached.clear()
    this.#cached.set(id, cached)
    return cached
  }

  #read(id: string): CachedDoc<T> {
    this.#fresh()
    return (
      this.#cached.get(id) ??
      this.#remember(id, (this.#byId.get(id) as { doc: string } | undefined)?.doc ?? null)
    )
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

  /** The documents with these ids that exist, from the cache where it has them, in no set order. */
  async getMany(ids: readonly string[]): Promise<T[]> {
    this.#fresh()
    const out: T[] = []
    const missing: string[] = []
    for (const id of ids) {
      const cached = this.#cached.get(id)
      if (cached === undefined) missing.push(id)
      else if (cached.json !== null) out.push(JSON.parse(cached.json) as T)
    }
    for (let i = 0; i < missing.length; i += chunkSize) {
      const chunk = missing.slice(i, i + chunkSize)
      const found = new Map<string, string>()
      const sql = `SELECT id, doc FROM ${this.#table} WHERE id IN (${chunk.map(() => '?').join(',')})`
      for (const row of this.#statement(sql).all(...chunk) as { id: string; doc: string }[])
        found.set(row.id, row.doc)
      for (const id of chunk) {
        const json = found.get(id) ?? null
        this.#remember(id, json)
        if (json !== null) out.push(JSON.parse(json) as T)
      }
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
    this.noteWrites(docs)
    for (const doc of docs) this.#upsert.run(doc.id, doc.position, JSON.stringify(doc))
  }

  /** The writer thread's rows for these documents (their writes noted here). */
  rowsFor(docs: readonly T[]): WriterBatch['writes'][number] {
    this.noteWrites(docs)
    return { table: this.#table, rows: docs.map((doc) => [doc.id, doc.position, JSON.stringify(doc)]) }
  }

  /**
   * The writer thread committed these rows: their writes are noted again, and, when no other
   * connection's commit was seen since they were sent (`cacheable`), the cache keeps the JSON
   * just written, so the next read of them (the next batch's projection, a client's poll) needs no
   * lookup. A row the position guard skipped is only dropped.
   */
  noteCommitted(
    rows: WriterBatch['writes'][number]['rows'],
    docs: readonly T[],
    skipped: ReadonlySet<string>,
    cacheable: boolean,
  ): void {
    this.noteWrites(docs)
    if (!cacheable || this.#cacheEra !== this.#validity.era) return
    for (const [id, , json] of rows) if (!skipped.has(`${this.#table} ${id}`)) this.#remember(id, json)
  }

  /**
   * Marks documents as written: their cached copies go and their change stamps move. For writes on
   * the writer thread this runs when they are sent and again when they are answered, so a copy read
   * in between (the old document) is not kept, and a stamp taken in between does not last.
   */
  noteWrites(docs: readonly T[]): void {
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
    for (const doc of docs) this.#cached.delete(doc.id)
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

/** A message on its way to the writer thread: its batches, and what each collection wrote. */
interface SentBatches {
  batches: PendingBatch[]
  written: {
    collection: SqliteCollection<Doc>
    docs: readonly Doc[]
    rows: WriterBatch['writes'][number]['rows']
  }[]
  /** The cache era when it was sent: a later one means another connection's commit came between. */
  era: number
}

interface PendingBatch {
  writes: readonly { collection: string; docs: readonly Doc[] }[]
  counter: { key: string; value: number }
  resolve: () => void
  reject: (error: unknown) => void
}

export class SqliteReadStore implements ReadStore {
  /** The guard is the upsert's own WHERE clause (sqlite-read-writes.ts). */
  readonly guardHoldsUnderRaces = true
  readonly #db: DatabaseSync
  readonly #collections = new Map<string, SqliteCollection<Doc>>()
  #getCounter: StatementSync | undefined
  #setCounter: StatementSync | undefined
  #claimLease: StatementSync | undefined
  #readLease: StatementSync | undefined
  readonly #validity: CacheValidity
  #checkpointer: Worker | null = null
  #pendingBatches: PendingBatch[] = []
  /** Commits the models' batches off the event loop (files only); null once it has failed. */
  #writer: Worker | null = null
  /** What the writer thread threw: nothing more is sent to it, and its exit settles what it held. */
  #writerError: unknown = null
  #batchIds = 0
  readonly #inFlight = new Map<number, SentBatches>()
  #drained: (() => void) | null = null

  /**
   * `writerThread: false` commits, and checkpoints, on the calling thread (always so for ':memory:'):
   * a second handle on a file, as tests and tools open one.
   */
  constructor(
    path: string,
    {
      writerThread = true,
      writerModule = new URL('./sqlite-read-writer.ts', import.meta.url),
      checkpointerModule = new URL('./sqlite-checkpointer.ts', import.meta.url),
    }: {
      writerThread?: boolean
      /** The threads' modules: sqlite-read-writer.ts and sqlite-checkpointer.ts, or stand-ins that tests make fail. */
      writerModule?: URL
      checkpointerModule?: URL
    } = {},
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, { timeout: 30_000 })
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `)
    createChangeSerial(this.#db)
    this.#validity = new CacheValidity(this.#db)
    if (path !== ':memory:' && writerThread) {
      // Checkpoints move to a thread of their own (sqlite-checkpointer.ts); this connection keeps a
      // far threshold only as a backstop, should that thread fall behind.
      this.#db.exec(`PRAGMA wal_autocheckpoint = ${backstopCheckpointPages}`)
      this.#checkpointer = new Worker(checkpointerModule, {
        workerData: { path, intervalMs: checkpointIntervalMs },
      })
      // A checkpointer that fails (it could not open the file) leaves checkpoints to the backstop:
      // the WAL stays bounded, and the process goes on.
      this.#checkpointer.on('error', () => {})
      this.#checkpointer.unref()
      const own = newOwnCommits()
      this.#validity.own = own
      const writer = new Worker(writerModule, { workerData: { path, own, backstopCheckpointPages } })
      writer.on('message', ({ replies }: { replies: { id: number; skipped?: string[]; error?: string }[] }) =>
        this.#settle(replies),
      )
      // A thread that throws may have answered commits it made just before, and Node can report the
      // error before it delivers those answers: what it holds is settled at 'exit', which comes
      // after every message the thread sent.
      writer.on('error', (error) => (this.#writerError ??= error))
      writer.on('exit', () => {
        if (this.#writer === writer)
          this.#writerFailed(this.#writerError ?? new Error('The read store writer thread stopped.'))
      })
      writer.unref()
      this.#writer = writer
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
    this.#setCounter ??= this.#db.prepare(setCounterSql)
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
    // One message to the writer at a time: what arrives meanwhile waits for its answer and goes in
    // the next. Each message costs both threads a wake-up (a system call each way), so under load
    // a message carries every batch of its commit's duration instead of one per turn.
    // A writer that failed takes nothing more; its exit sends what waits here to be committed here.
    if (this.#writer && (this.#inFlight.size > 0 || this.#writerError)) return
    const batches = this.#pendingBatches
    this.#pendingBatches = []
    if (batches.length === 0) return
    if (this.#writer) this.#send(this.#writer, batches)
    else this.#commitHere(batches)
  }

  /** The batches to the writer thread, as one message; they are settled when it answers. */
  #send(writer: Worker, batches: PendingBatch[]): void {
    const message: WriterBatch = { id: ++this.#batchIds, writes: [], counters: [] }
    const written: SentBatches['written'] = []
    for (const { writes, counter } of batches) {
      for (const { collection, docs } of writes) {
        const target = this.collection(collection) as SqliteCollection<Doc>
        const rows = target.rowsFor(docs)
        message.writes.push(rows)
        written.push({ collection: target, docs, rows: rows.rows })
      }
      message.counters.push([counter.key, counter.value])
    }
    this.#inFlight.set(message.id, { batches, written, era: this.#validity.era })
    writer.ref()
    writer.postMessage(message)
  }

  #settle(replies: readonly { id: number; skipped?: string[]; error?: string }[]): void {
    for (const { id, skipped = [], error } of replies) {
      const sent = this.#inFlight.get(id)
      if (!sent) continue
      this.#inFlight.delete(id)
      const left = new Set(skipped)
      const cacheable = error === undefined && sent.era === this.#validity.era
      for (const { collection, docs, rows } of sent.written)
        collection.noteCommitted(rows, docs, left, cacheable)
      for (const batch of sent.batches) {
        if (error === undefined) batch.resolve()
        else batch.reject(new Error(error))
      }
    }
    if (this.#inFlight.size === 0) {
      this.#writer?.unref()
      this.#drained?.()
      if (this.#pendingBatches.length > 0) this.#commitPendingBatches()
    }
  }

  /**
   * The writer thread ended: what it held and did not answer may or may not be committed, so it is
   * refused; the batches waiting, and all later ones, are committed here.
   */
  #writerFailed(error: unknown): void {
    this.#writer = null
    this.#validity.invalidate()
    for (const { batches } of this.#inFlight.values()) for (const batch of batches) batch.reject(error)
    this.#inFlight.clear()
    this.#drained?.()
    if (this.#db.isOpen) this.#commitPendingBatches()
  }

  #commitHere(batches: PendingBatch[]): void {
    try {
      this.#setCounter ??= this.#db.prepare(setCounterSql)
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
    // Batches already sent are committed and answered before the connections close.
    while (this.#inFlight.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve))
    this.#drained = null
    const writer = this.#writer
    this.#writer = null
    await writer?.terminate()
    // Batches that came after the last message (or after the thread failed) are committed here.
    if (this.#db.isOpen) this.#commitPendingBatches()
    if (this.#db.isOpen) this.#db.close()
  }
}
