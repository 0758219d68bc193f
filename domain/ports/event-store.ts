// The event store: append-only streams with optimistic concurrency, one global order, and
// catch-up subscriptions. Adapters: SQLite (embedded) and KurrentDB (scale-out).

export type ExpectedRevision = 'no_stream' | 'any' | number

export interface NewEvent {
  /** UUID. Deterministic where a retry could append the same event twice: a repeated append is a no-op. */
  id: string
  type: string
  data: unknown
  metadata?: Record<string, unknown>
}

export interface RecordedEvent<Data = unknown> {
  id: string
  streamId: string
  /** 0-based position of the event inside its stream. */
  revision: number
  /** Position in the global order (strictly increasing, not necessarily dense). */
  position: number
  type: string
  data: Data
  metadata: Record<string, unknown>
  createdAt: string
}

/** One stream's part of an append to several streams. */
export interface StreamAppend {
  streamId: string
  events: NewEvent[]
  expected: ExpectedRevision
}

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextRevision: number
  /** Global position of the last appended (or already present) event. */
  position: number
}

export class WrongExpectedVersionError extends Error {
  readonly streamId: string
  readonly expected: ExpectedRevision
  readonly actual: number | 'no_stream'
  constructor(streamId: string, expected: ExpectedRevision, actual: number | 'no_stream') {
    super(`Stream ${streamId}: expected revision ${String(expected)}, found ${String(actual)}`)
    this.name = 'WrongExpectedVersionError'
    this.streamId = streamId
    this.expected = expected
    this.actual = actual
  }
}

export interface Subscription {
  /** Stops the subscription; resolves once the handler will not be called again. */
  stop(): Promise<void>
}

export interface SubscribeOptions {
  /** Deliver events with a position strictly greater than this (0 = from the start). */
  fromPosition: number
  /** Called in global order; the next event waits for the returned promise. */
  onEvent(event: RecordedEvent): Promise<void> | void
  onError?(error: unknown): void
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>
  /**
   * Appends to several streams as one commit: every stream's events or none. A wrong expected
   * revision on any of them fails the whole append with WrongExpectedVersionError (naming that
   * stream). Results come in the order of the appends.
   */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]>
  /** All events of a stream in order; empty when the stream does not exist. */
  readStream(streamId: string, fromRevision?: number): Promise<RecordedEvent[]>
  /** Events with position > fromPosition, in global order, at most maxCount. */
  readAll(fromPosition: number, maxCount: number): Promise<RecordedEvent[]>
  /** Position of the newest event (0 when empty). */
  headPosition(): Promise<number>
  /** Catch up from fromPosition, then stay live. */
  subscribeToAll(options: SubscribeOptions): Subscription
  close(): Promise<void>
}
