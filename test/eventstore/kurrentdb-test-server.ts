// A KurrentDB stand-in for the KurrentDB adapter's contract suite, where no KurrentDB server can be
// installed: a gRPC server speaking KurrentDB's own v1 client protocol, built on the service and
// message definitions generated from the proto files that the official client ships
// (@kurrent/kurrentdb-client/generated). The official client (and its Rust bridge, which serves the
// reads) talks to it exactly as to a server: Streams.Append with expected revisions and KurrentDB's
// idempotent re-append, Streams.Read of a stream or of $all in both directions with counts and the
// system-event filter, and catch-up subscriptions to $all (confirmation, history, caught-up, live).
// ServerFeatures answers with the methods implemented, so the client takes the v1 paths.
//
// It keeps events in memory; positions grow by each event's size, so they are not dense, as on a
// real server. When KURRENTDB_URL is set the suite runs against that real server instead.
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as grpc from '@grpc/grpc-js'

const require = createRequire(import.meta.url)
const generated = join(
  dirname(require.resolve('@kurrent/kurrentdb-client/package.json')),
  'generated',
  'kurrentdb',
  'protocols',
  'v1',
)
// biome-ignore lint/suspicious/noExplicitAny: generated google-protobuf classes, used dynamically
type Any = any
const streamsPb: Any = require(join(generated, 'streams_pb.js'))
const streamsGrpc: Any = require(join(generated, 'streams_grpc_pb.js'))
const sharedPb: Any = require(join(generated, 'shared_pb.js'))
const featuresPb: Any = require(join(generated, 'serverfeatures_pb.js'))
const featuresGrpc: Any = require(join(generated, 'serverfeatures_grpc_pb.js'))

interface StoredEvent {
  id: string
  streamName: string
  revision: number
  position: number
  metadata: Map<string, string>
  customMetadata: Uint8Array
  data: Uint8Array
}

interface Subscriber {
  from: number
  excludeSystem: boolean
  structuredIds: boolean
  call: grpc.ServerWritableStream<Any, Any>
}

const ticksPerMs = 10_000n

function uuidToString(uuid: Any): string {
  if (uuid.hasString()) return uuid.getString()
  const structured = uuid.getStructured()
  const hex = (value: string) => BigInt.asUintN(64, BigInt(value)).toString(16).padStart(16, '0')
  const all = hex(structured.getMostSignificantBits()) + hex(structured.getLeastSignificantBits())
  return `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20)}`
}

function uuidMessage(id: string, structured: boolean): Any {
  const uuid = new sharedPb.UUID()
  if (!structured) return uuid.setString(id)
  const hex = id.replaceAll('-', '')
  const signed = (part: string) => BigInt.asIntN(64, BigInt(`0x${part}`)).toString()
  return uuid.setStructured(
    new sharedPb.UUID.Structured()
      .setMostSignificantBits(signed(hex.slice(0, 16)))
      .setLeastSignificantBits(signed(hex.slice(16))),
  )
}

const streamNameOf = (identifier: Any) => Buffer.from(identifier.getStreamName_asU8()).toString('utf8')
const identifierOf = (name: string) => new sharedPb.StreamIdentifier().setStreamName(Buffer.from(name))

export class KurrentDbTestServer {
  readonly #server = new grpc.Server()
  readonly #log: StoredEvent[] = []
  readonly #streams = new Map<string, StoredEvent[]>()
  readonly #subscribers = new Set<Subscriber>()
  #position = 0
  #port = 0

  get connectionString(): string {
    return `kurrentdb://127.0.0.1:${this.#port}?tls=false`
  }

  async start(): Promise<void> {
    this.#server.addService(streamsGrpc.StreamsService, {
      read: (call: grpc.ServerWritableStream<Any, Any>) => this.#read(call),
      append: (call: grpc.ServerReadableStream<Any, Any>, callback: grpc.sendUnaryData<Any>) =>
        this.#append(call, callback),
      delete: this.#unimplemented,
      tombstone: this.#unimplemented,
      batchAppend: (call: grpc.ServerDuplexStream<Any, Any>) =>
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'BatchAppend is not offered' }),
    })
    this.#server.addService(featuresGrpc.ServerFeaturesService, {
      getSupportedMethods: (_call: unknown, callback: grpc.sendUnaryData<Any>) => {
        const method = (name: string) =>
          new featuresPb.SupportedMethod()
            .setServiceName('event_store.client.streams.streams')
            .setMethodName(name)
        callback(
          null,
          new featuresPb.SupportedMethods()
            .setEventStoreServerVersion('24.10.0')
            .setMethodsList([method('read'), method('append')]),
        )
      },
    })
    this.#port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    )
  }

  async stop(): Promise<void> {
    for (const subscriber of this.#subscribers) subscriber.call.end()
    this.#subscribers.clear()
    await new Promise<void>((resolve) => this.#server.tryShutdown(() => resolve()))
  }

  #unimplemented = (_call: unknown, callback: grpc.sendUnaryData<Any>) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: 'not offered by the test server' }, null)

  #append(call: grpc.ServerReadableStream<Any, Any>, callback: grpc.sendUnaryData<Any>): void {
    let options: Any = null
    const proposed: Any[] = []
    call.on('data', (request: Any) => {
      if (request.hasOptions()) options = request.getOptions()
      else proposed.push(request.getProposedMessage())
    })
    call.on('error', () => {})
    call.on('end', () => {
      if (!options) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'no options' }, null)
      callback(null, this.#commit(options, proposed))
    })
  }

  #commit(options: Any, proposed: Any[]): Any {
    const name = streamNameOf(options.getStreamIdentifier())
    const stream = this.#streams.get(name) ?? []
    const current = stream.length - 1
    const ids = proposed.map((message) => uuidToString(message.getId()))
    const response = new streamsPb.AppendResp()
    const success = (revision: number, position: number | null) => {
      const ok = new streamsPb.AppendResp.Success()
      if (revision < 0) ok.setNoStream(new sharedPb.Empty())
      else ok.setCurrentRevision(String(revision))
      if (position === null) ok.setNoPosition(new sharedPb.Empty())
      else
        ok.setPosition(
          new streamsPb.AppendResp.Position()
            .setCommitPosition(String(position))
            .setPreparePosition(String(position)),
        )
      return response.setSuccess(ok)
    }

    // KurrentDB's idempotence: the same event ids already written where this append would put them
    // (or anywhere in the stream, for `any`) make the append a no-op that succeeds.
    const start = options.hasRevision() ? Number(options.getRevision()) + 1 : options.hasNoStream() ? 0 : -1
    const matchAt = (at: number) => ids.length > 0 && ids.every((id, i) => stream[at + i]?.id === id)
    const repeatAt = start >= 0 ? (matchAt(start) ? start : -1) : stream.findIndex((_, at) => matchAt(at))
    if (repeatAt >= 0) {
      const last = stream[repeatAt + ids.length - 1]!
      return success(last.revision, last.position)
    }

    const wrong =
      (options.hasRevision() && Number(options.getRevision()) !== current) ||
      (options.hasNoStream() && current !== -1) ||
      (options.hasStreamExists() && current === -1)
    if (wrong) {
      const error = new streamsPb.AppendResp.WrongExpectedVersion()
      if (current === -1) error.setCurrentNoStream(new sharedPb.Empty())
      else error.setCurrentRevision(String(current))
      if (options.hasRevision()) error.setExpectedRevision(options.getRevision())
      else if (options.hasNoStream()) error.setExpectedNoStream(new sharedPb.Empty())
      else if (options.hasStreamExists()) error.setExpectedStreamExists(new sharedPb.Empty())
      else error.setExpectedAny(new sharedPb.Empty())
      return response.setWrongExpectedVersion(error)
    }
    if (proposed.length === 0) return success(current, null)

    const created = String(BigInt(Date.now()) * ticksPerMs)
    const written: StoredEvent[] = proposed.map((message, i) => {
      const metadata = new Map<string, string>(message.getMetadataMap().entries())
      metadata.set('created', created)
      const data = message.getData_asU8() as Uint8Array
      // Positions advance by the event's size, as a log's byte offsets do: ordered, not dense.
      this.#position += 64 + data.length
      return {
        id: ids[i]!,
        streamName: name,
        revision: current + 1 + i,
        position: this.#position,
        metadata,
        customMetadata: message.getCustomMetadata_asU8(),
        data,
      }
    })
    stream.push(...written)
    this.#streams.set(name, stream)
    this.#log.push(...written)
    for (const subscriber of this.#subscribers) for (const event of written) this.#deliver(subscriber, event)
    const last = written.at(-1)!
    return success(last.revision, last.position)
  }

  #recorded(event: StoredEvent, structuredIds: boolean): Any {
    const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
      .setId(uuidMessage(event.id, structuredIds))
      .setStreamIdentifier(identifierOf(event.streamName))
      .setStreamRevision(String(event.revision))
      .setPreparePosition(String(event.position))
      .setCommitPosition(String(event.position))
      .setCustomMetadata(event.customMetadata)
      .setData(event.data)
    for (const [key, value] of event.metadata) recorded.getMetadataMap().set(key, value)
    return new streamsPb.ReadResp().setEvent(
      new streamsPb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(String(event.position)),
    )
  }

  #deliver(subscriber: Subscriber, event: StoredEvent): void {
    if (event.position <= subscriber.from) return
    if (subscriber.excludeSystem && (event.metadata.get('type') ?? '').startsWith('$')) return
    subscriber.call.write(this.#recorded(event, subscriber.structuredIds))
  }

  #read(call: grpc.ServerWritableStream<Any, Any>): void {
    const options = call.request.getOptions()
    const structuredIds = options.getUuidOption()?.hasStructured() ?? false
    const backwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS
    const count = options.hasCount() ? Number(options.getCount()) : Number.POSITIVE_INFINITY
    const filter = options.hasFilter() ? options.getFilter() : null
    // The client's excludeSystemEvents() is an event-type regex that refuses a leading `$`.
    const excludeSystem = filter?.hasEventType() && /\^\[\^\\?\$\]/.test(filter.getEventType().getRegex())

    if (options.hasStream()) {
      const streamOptions = options.getStream()
      const name = streamNameOf(streamOptions.getStreamIdentifier())
      const stream = this.#streams.get(name)
      if (!stream) {
        call.write(
          new streamsPb.ReadResp().setStreamNotFound(
            new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(identifierOf(name)),
          ),
        )
        call.end()
        return
      }
      let events = backwards ? [...stream].reverse() : stream
      if (streamOptions.hasRevision()) {
        const revision = Number(streamOptions.getRevision())
        events = events.filter((event) =>
          backwards ? event.revision <= revision : event.revision >= revision,
        )
      } else if (streamOptions.hasEnd() && !backwards) events = []
      for (const event of events.slice(0, count)) call.write(this.#recorded(event, structuredIds))
      call.end()
      return
    }

    const all = options.getAll()
    const from = all.hasPosition()
      ? Number(all.getPosition().getCommitPosition())
      : all.hasEnd()
        ? Number.POSITIVE_INFINITY
        : -1
    const visible = (event: StoredEvent) =>
      !(excludeSystem && (event.metadata.get('type') ?? '').startsWith('$'))

    if (options.hasSubscription()) {
      call.write(
        new streamsPb.ReadResp().setConfirmation(
          new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()),
        ),
      )
      const subscriber: Subscriber = {
        from: from < 0 ? -1 : from,
        excludeSystem: !!excludeSystem,
        structuredIds,
        call,
      }
      for (const event of this.#log) this.#deliver(subscriber, event)
      call.write(new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()))
      this.#subscribers.add(subscriber)
      const forget = () => this.#subscribers.delete(subscriber)
      call.on('cancelled', forget)
      call.on('close', forget)
      call.on('error', forget)
      return
    }

    const events = backwards
      ? [...this.#log]
          .reverse()
          .filter((event) => event.position <= from || from === Number.POSITIVE_INFINITY)
      : this.#log.filter((event) => event.position >= from)
    let sent = 0
    for (const event of events) {
      if (sent >= count) break
      if (!visible(event)) continue
      call.write(this.#recorded(event, structuredIds))
      sent++
    }
    call.end()
  }
}
