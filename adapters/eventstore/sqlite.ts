// The embedded event store: one SQLite file in WAL mode with synchronous=FULL, so an append is on
// disk when it is acknowledged. Appends run in BEGIN IMMEDIATE transactions: writers from several
// processes serialise on the database lock, and the autoincrement position is one global order in
// which a reader can never see a later event before an earlier one.
//
// Group commit: appends that arrive while a commit is under way are written together in the next one
// (adapters/eventstore/sqlite-batch.ts), so one fsync makes many appends durable, and none is
// acknowledged before the COMMIT that holds it. A file-backed store commits on a writer thread of its
// own (sqlite-writer.ts): the fsync then holds up only that thread, and the event loop keeps serving
// requests. Each turn's appends are sent to the thread at once, and the thread commits everything that
// arrived during its last commit together, so one fsync follows the next without a round trip through
// the event loop in between. Reads use this thread's connection; in WAL mode they see every committed
// append.
import { EventEmitter } from 'node:events'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../../domain/ports/event-store.ts'
import { startPollingSubscription } from './polling-subscription.ts'
import {
  type AppendOutcome,
  type AppendRequest,
  appendError,
  eventsTable,
  prepareWrites,
  writeBatch,
} from './sqlite-batch.ts'

interface PendingAppend {
  request: AppendRequest
  resolve: (results: AppendResult[]) => void
  reject: (error: unknown) => void
}

/** The writer's answer for one batch; it answers every batch of a transaction in one message. */
type BatchReply = { id: number; createdAt: string; outcomes: AppendOutcome[] } | { id: number; error: string }

/** How many of its latest events the store keeps for subscribers at its head. */
const tailSize = 2048

interface Row {
  position: number
  stream_id: string
  revision: number
  event_id: string
  type: string
  data: string
  metadata: string
  created_at: string
}

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
  createdAt: row.created_at,
})

export interface SqliteEventStoreOptions {
  /** How often other processes' appends are looked for while a subscription is live. */
  pollIntervalMs?: number
  now?: () => Date
  /** Commit on a writer thread (the default for a file) or on the calling thread (always for :memory:). */
  writerThread?: boolean
  /** The writer thread's module: sqlite-writer.ts, or a stand-in that tests make fail. */
  writerModule?: URL
}

export class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync
  readonly #appended = new EventEmitter()
  readonly #pollIntervalMs: number
  readonly #now: () => Date
  #queue: PendingAppend[] = []
  /** Batches sent and not yet answered, by id; the writer commits them in the order they were sent. */
  readonly #inFlight = new Map<number, PendingAppend[]>()
  #flushScheduled = false
  #batchIds = 0
  #drained: (() => void) | null = null
  #writerFailure: unknown = null
  #closing = false
  /**
   * The events this store's own commits inserted last, as recorded: one run of consecutive
   * positions (another process's append in between starts a new run). readAll answers from it
   * what lies inside it, so the subscribers woken by an append read nothing back from the file.
   */
  #tail: RecordedEvent[] = []
  /** The page readAll answered last in this turn of the event loop; read-only for every reader. */
  #sharedPage: { from: number; max: number; events: RecordedEvent[] } | null = null
  readonly #writer: Worker | null
  readonly #commit: (id: number, batch: AppendRequest[], createdAt: string) => void
  readonly #statements: {
    readStream: StatementSync
    readAll: StatementSync
    head: StatementSync
  }

  constructor(path: string, options: SqliteEventStoreOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, { timeout: 30_000 })
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = FULL;
      ${eventsTable}
    `)
    this.#appended.setMaxListeners(0)
    this.#pollIntervalMs = options.pollIntervalMs ?? 200
    this.#now = options.now ?? (() => new Date())
    if (path !== ':memory:' && options.writerThread !== false) {
      const module = options.writerModule ?? new URL('./sqlite-writer.ts', import.meta.url)
      const writer = new Worker(module, { workerData: { path } })
      writer.unref()
      writer.on('message', ({ replies }: { replies: BatchReply[] }) => this.#settle(replies))
      // A thread that throws may have answered batches it committed just before, and Node can
      // report the error before it delivers those answers: new appends are refused at once, but
      // what is in flight is settled at 'exit', which comes after every message the thread sent.
      writer.on('error', (error) => (this.#writerFailure ??= error))
      writer.on('exit', () =>
        this.#fail(
          this.#writerFailure ??
            new Error(
              this.#closing ? 'The event store is closed.' : 'The event store writer thread stopped.',
            ),
        ),
      )
      this.#writer = writer
      this.#commit = (id, batch, createdAt) => {
        writer.ref()
        writer.postMessage({ id, batch, createdAt })
      }
    } else {
      const writes = prepareWrites(this.#db)
      this.#writer = null
      this.#commit = (id, batch, createdAt) => {
        let reply: BatchReply
        try {
          reply = { id, createdAt, outcomes: writeBatch(this.#db, writes, batch, createdAt) }
        } catch (error) {
          reply = { id, error: error instanceof Error ? error.message : String(error) }
        }
        this.#settle([reply])
      }
    }
    this.#statements = {
      readStream: this.#db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision',
      ),
      readAll: this.#db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.#db.prepare('SELECT COALESCE(MAX(position), 0) AS position FROM events'),
    }
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.#enqueue([{ streamId, events, expected }])
    return result!
  }

  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return this.#enqueue(appends)
  }

  #enqueue(request: AppendRequest): Promise<AppendResult[]> {
    return new Promise((resolve, reject) => {
      if (this.#writerFailure) {
        reject(this.#writerFailure)
        return
      }
      this.#queue.push({ request, resolve, reject })
      // Appends made in the same turn of the event loop share a batch.
      if (!this.#flushScheduled) {
        this.#flushScheduled = true
        setImmediate(() => {
          this.#flushScheduled = false
          this.#flush()
        })
      }
    })
  }

  #flush(): void {
    if (this.#queue.length === 0) return
    const batch = this.#queue
    this.#queue = []
    const id = ++this.#batchIds
    this.#inFlight.set(id, batch)
    this.#commit(
      id,
      batch.map(({ request }) => request),
      this.#now().toISOString(),
    )
  }

  /** A transaction finished: settle the appends of each batch it held. */
  #settle(replies: readonly BatchReply[]): void {
    let head = 0
    for (const reply of replies) {
      const batch = this.#inFlight.get(reply.id) ?? []
      this.#inFlight.delete(reply.id)
      if ('error' in reply) {
        // BEGIN or COMMIT failed (locked past the timeout, disk full): nothing of the batch is durable.
        for (const request of batch) request.reject(new Error(reply.error))
        continue
      }
      for (const [i, pending] of batch.entries()) {
        const outcome = reply.outcomes[i]!
        if ('results' in outcome) {
          for (const [j, result] of outcome.results.entries()) {
            head = Math.max(head, result.position)
            this.#remember(pending.request[j]!, result, outcome.written[j]!, reply.createdAt)
          }
          pending.resolve(outcome.results)
        } else pending.reject(appendError(outcome.failure))
      }
    }
    if (head > 0) {
      this.#sharedPage = null
      this.#appended.emit('append', head)
    }
    if (this.#inFlight.size === 0) {
      this.#writer?.unref()
      this.#drained?.()
    }
  }

  /** Adds the events one stream's append inserted to the tail (they end at `result`). */
  #remember(
    { streamId, events }: StreamAppend,
    result: AppendResult,
    inserted: number,
    createdAt: string,
  ): void {
    if (inserted === 0 || inserted !== events.length) return
    const first = result.position - inserted + 1
    if (this.#tail.at(-1)?.position !== first - 1) this.#tail = []
    else if (this.#tail.length >= 2 * tailSize) this.#tail = this.#tail.slice(-tailSize)
    for (const [k, event] of events.entries()) {
      this.#tail.push({
        id: event.id,
        streamId,
        revision: result.nextRevision - inserted + 1 + k,
        position: first + k,
        type: event.type,
        data: event.data,
        metadata: event.metadata ?? {},
        createdAt,
      })
    }
  }

  /** The writer thread ended: nothing still in flight, queued or to come can be committed. */
  #fail(error: unknown): void {
    this.#writerFailure = error
    for (const request of [...[...this.#inFlight.values()].flat(), ...this.#queue]) request.reject(error)
    this.#inFlight.clear()
    this.#queue = []
    this.#drained?.()
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    return (this.#statements.readStream.all(streamId, fromRevision) as unknown as Row[]).map(toRecorded)
  }

  async readAll(fromPosition: number, maxCount: number): Promise<RecordedEvent[]> {
    // Inside the tail's run nothing else can lie between its events: answer from memory.
    const first = this.#tail[0]
    if (first && fromPosition >= first.position - 1 && fromPosition < this.#tail.at(-1)!.position) {
      const start = fromPosition + 1 - first.position
      return this.#tail.slice(start, start + maxCount)
    }
    // Every subscriber (each read model, the housekeeper, the dispatcher) wakes on the same append
    // and asks for the same page: it is read and parsed once per turn of the event loop, not once each.
    const shared = this.#sharedPage
    if (shared && shared.from === fromPosition && shared.max === maxCount) return shared.events
    const events = (this.#statements.readAll.all(fromPosition, maxCount) as unknown as Row[]).map(toRecorded)
    if (!this.#sharedPage) setImmediate(() => (this.#sharedPage = null))
    this.#sharedPage = { from: fromPosition, max: maxCount, events }
    return events
  }

  async headPosition(): Promise<number> {
    return (this.#statements.head.get() as { position: number }).position
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return startPollingSubscription(this, this.#appended, this.#pollIntervalMs, options)
  }

  async close(): Promise<void> {
    // Appends already made are committed and acknowledged before the connections close.
    while (this.#inFlight.size > 0 || this.#queue.length > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve
        this.#flush()
      })
      this.#drained = null
    }
    this.#closing = true
    await this.#writer?.terminate()
    this.#appended.removeAllListeners()
    if (this.#db.isOpen) this.#db.close()
  }
}
