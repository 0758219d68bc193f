// The scale-out event store: KurrentDB (EventStoreDB). Positions are commit positions of the
// global log; KurrentDB's own idempotency (same event ids at the same place) gives the no-op
// repeated append.
//
// Appends to several streams use the server's multi-stream append (KurrentDB 25.1 and later: one
// atomic commit). Older servers (the 24.10 we test against) lack it; there the streams are appended
// one after another in the caller's order, each with its expected revision. That is not atomic: a
// failure after the first leaves it appended, as two separate appends always did, and the callers
// are written for it (a job's admission without its job stream is found and released by the
// housekeeper); a conflict on any stream still fails the call, so deciders still retry.
import {
  ANY,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  WrongExpectedVersionError as KurrentWrongExpectedVersion,
  NO_STREAM,
  START,
  StreamNotFoundError,
  UnsupportedError,
} from '@kurrent/kurrentdb-client'
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedVersionError,
} from '../../domain/ports/event-store.ts'

interface KurrentRecorded {
  id: string
  streamId: string
  revision: bigint
  type: string
  data: unknown
  metadata: unknown
  created: Date | string | number
  position?: { commit: bigint; prepare: bigint }
}

function toRecorded(event: KurrentRecorded): RecordedEvent {
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: Number(event.position?.commit ?? 0n),
    type: event.type,
    data: event.data,
    metadata: (event.metadata as Record<string, unknown> | undefined) ?? {},
    createdAt: new Date(event.created).toISOString(),
  }
}

const streamState = (expected: ExpectedRevision) =>
  expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : BigInt(expected)

const isNotFound = (error: unknown) => error instanceof StreamNotFoundError

const toEventData = (e: NewEvent) =>
  jsonEvent({ id: e.id, type: e.type, data: e.data as never, metadata: (e.metadata ?? {}) as never })

/** The multi-stream append carries metadata as string properties only. */
const hasStringMetadata = (appends: readonly StreamAppend[]) =>
  appends.every(({ events }) =>
    events.every((e) => Object.values(e.metadata ?? {}).every((v) => typeof v === 'string')),
  )

function asOurConflict(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!(error instanceof KurrentWrongExpectedVersion)) return error
  const actual = error.actualState
  return new WrongExpectedVersionError(
    streamId,
    expected,
    typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream',
  )
}

export class KurrentDbEventStore implements EventStore {
  readonly #client: KurrentDBClient

  constructor(connectionString: string) {
    this.#client = KurrentDBClient.connectionString`${connectionString}`
  }

  /** False once the server said it has no multi-stream append. */
  #multiStreamAppend = true

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.#client.appendToStream(streamId, events.map(toEventData), {
        streamState: streamState(expected),
      })
      return {
        nextRevision: Number(result.nextExpectedRevision),
        position: Number(result.position?.commit ?? 0n),
      }
    } catch (error) {
      throw asOurConflict(error, streamId, expected)
    }
  }

  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (this.#multiStreamAppend && appends.length > 1 && hasStringMetadata(appends)) {
      try {
        const result = await this.#client.multiStreamAppend(
          appends.map(({ streamId, events, expected }) => ({
            streamName: streamId,
            events: events.map(toEventData),
            expectedState: streamState(expected),
          })),
        )
        const position = Number(result.position)
        return appends.map(({ streamId, events }) => {
          const response = result.responses.find((r) => r.streamName === streamId)
          return { nextRevision: Number(response?.revision ?? BigInt(events.length - 1)), position }
        })
      } catch (error) {
        if (error instanceof UnsupportedError) this.#multiStreamAppend = false
        else if (error instanceof KurrentWrongExpectedVersion) {
          const part = appends.find((a) => a.streamId === error.streamName) ?? appends[0]!
          throw asOurConflict(error, part.streamId, part.expected)
        } else throw error
      }
    }
    const results: AppendResult[] = []
    for (const { streamId, events, expected } of appends)
      results.push(await this.append(streamId, events, expected))
    return results
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = []
    try {
      for await (const resolved of this.#client.readStream(streamId, {
        fromRevision: fromRevision === 0 ? START : BigInt(fromRevision),
        direction: FORWARDS,
      })) {
        if (resolved.event) out.push(toRecorded(resolved.event as unknown as KurrentRecorded))
      }
    } catch (error) {
      if (!isNotFound(error)) throw error
    }
    return out
  }

  async readAll(fromPosition: number, maxCount: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = []
    const from = fromPosition === 0 ? START : { commit: BigInt(fromPosition), prepare: BigInt(fromPosition) }
    for await (const resolved of this.#client.readAll({
      fromPosition: from,
      direction: FORWARDS,
      maxCount: maxCount + 1,
      filter: excludeSystemEvents(),
    })) {
      const event = resolved.event as unknown as KurrentRecorded | undefined
      if (!event || Number(event.position?.commit ?? 0n) <= fromPosition) continue
      out.push(toRecorded(event))
      if (out.length === maxCount) break
    }
    return out
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.#client.readAll({
      fromPosition: 'end',
      direction: 'backwards',
      maxCount: 1,
      filter: excludeSystemEvents(),
    })) {
      return Number(resolved.event?.position?.commit ?? 0n)
    }
    return 0
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const from =
      options.fromPosition === 0
        ? START
        : { commit: BigInt(options.fromPosition), prepare: BigInt(options.fromPosition) }
    const subscription = this.#client.subscribeToAll({ fromPosition: from, filter: excludeSystemEvents() })
    const loop = (async () => {
      try {
        for await (const resolved of subscription) {
          const event = resolved.event as unknown as KurrentRecorded | undefined
          if (!event || Number(event.position?.commit ?? 0n) <= options.fromPosition) continue
          await options.onEvent(toRecorded(event))
        }
      } catch (error) {
        options.onError?.(error)
      }
    })()
    return {
      async stop() {
        await subscription.unsubscribe()
        await loop
      },
    }
  }

  async close(): Promise<void> {
    await this.#client.dispose()
  }
}
