// The scale-out event store: KurrentDB (EventStoreDB). Positions are commit positions of the
// global log; KurrentDB's own idempotency (same event ids at the same place) gives the no-op
// repeated append.
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
} from '@kurrent/kurrentdb-client'
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
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

export class KurrentDbEventStore implements EventStore {
  readonly #client: KurrentDBClient

  constructor(connectionString: string) {
    this.#client = KurrentDBClient.connectionString`${connectionString}`
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.#client.appendToStream(
        streamId,
        events.map((e) =>
          jsonEvent({ id: e.id, type: e.type, data: e.data as never, metadata: (e.metadata ?? {}) as never }),
        ),
        { streamState: streamState(expected) },
      )
      return {
        nextRevision: Number(result.nextExpectedRevision),
        position: Number(result.position?.commit ?? 0n),
      }
    } catch (error) {
      if (error instanceof KurrentWrongExpectedVersion) {
        const actual = error.actualState
        throw new WrongExpectedVersionError(
          streamId,
          expected,
          typeof actual === 'bigint' ? Number(actual) : 'no_stream',
        )
      }
      throw error
    }
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
