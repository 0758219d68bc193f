// Read the stream, fold it, decide, append with the expected revision; on a concurrent write,
// read again and decide again. The one way every surface changes state.
import { type EventStore, type NewEvent, WrongExpectedVersionError } from '../domain/ports/event-store.ts'
import { deterministicEventId } from './event-ids.ts'
import { type StreamSnapshots, snapshotsOf } from './stream-snapshots.ts'

export interface Decider<State, Command, Event extends { type: string; data: unknown }> {
  initialState(): State
  evolve(state: State, event: Event): State
  decide(command: Command, state: State): Event[]
  /** Long-lived streams (accounts) decide from a snapshot and the events after it (stream-snapshots.ts). */
  snapshots?: boolean
}

export interface CommandOutcome<State, Event> {
  /** The events this command appended (empty when it changed nothing). */
  events: Event[]
  /** The state after the command. */
  state: State
  /** Global position to wait for (read-your-writes); the stream's last position when nothing was appended. */
  position: number
}

/** Decided events as the store takes them, with ids that make a repeated append a no-op. */
export function toNewEvents(streamId: string, events: { type: string; data: unknown }[]): NewEvent[] {
  return events.map((event) => ({
    id: deterministicEventId(streamId, event.type, event.data),
    type: event.type,
    data: event.data,
  }))
}

export async function handleCommand<State, Command, Event extends { type: string; data: unknown }>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  { retries = 50 }: { retries?: number } = {},
): Promise<CommandOutcome<State, Event>> {
  const snapshots = decider.snapshots ? snapshotsOf(store) : undefined
  if (snapshots) return handleFromSnapshot(store, snapshots, streamId, decider, command, retries)
  for (let attempt = 0; ; attempt++) {
    const recorded = await store.readStream(streamId)
    let state = decider.initialState()
    for (const event of recorded) state = decider.evolve(state, event as unknown as Event)
    const events = decider.decide(command, state)
    const lastPosition = recorded.at(-1)?.position ?? 0
    if (events.length === 0) return { events, state, position: lastPosition }
    try {
      const { position } = await store.append(
        streamId,
        toNewEvents(streamId, events),
        recorded.length === 0 ? 'no_stream' : recorded.length - 1,
      )
      for (const event of events) state = decider.evolve(state, event)
      return { events, state, position }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= retries) throw error
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))
    }
  }
}

/**
 * handleCommand on a snapshotted stream: the cached (or persisted) state advanced by the stream's
 * tail, decided on, appended at the revision it reflects. The state is only ever advanced by events
 * in the stream, so a lost race just reads the winner's events and decides again.
 */
async function handleFromSnapshot<State, Command, Event extends { type: string; data: unknown }>(
  store: EventStore,
  snapshots: StreamSnapshots,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  retries: number,
): Promise<CommandOutcome<State, Event>> {
  return snapshots.exclusive(streamId, async () => {
    for (let attempt = 0; ; attempt++) {
      const entry = await currentEntry(store, snapshots, streamId, decider)
      const events = decider.decide(command, entry.state)
      if (events.length === 0) return { events, state: entry.state, position: entry.position }
      try {
        const { position } = await store.append(
          streamId,
          toNewEvents(streamId, events),
          entry.revision === -1 ? 'no_stream' : entry.revision,
        )
        for (const event of events) entry.state = decider.evolve(entry.state, event)
        entry.revision += events.length
        entry.position = position
        entry.currentAt = performance.now()
        await snapshots.maybePersist(streamId, entry)
        return { events, state: entry.state, position }
      } catch (error) {
        // A conflict leaves the cached state exact (nothing was folded); anything else may not.
        if (!(error instanceof WrongExpectedVersionError)) snapshots.drop(streamId)
        if (!(error instanceof WrongExpectedVersionError) || attempt >= retries) throw error
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))
      }
    }
  })
}

/** The snapshot of a stream advanced by its tail; call it inside `snapshots.exclusive`. */
export async function currentEntry<State, Command, Event extends { type: string; data: unknown }>(
  store: EventStore,
  snapshots: StreamSnapshots,
  streamId: string,
  decider: Decider<State, Command, Event>,
) {
  const entry = await snapshots.get(streamId, decider.initialState)
  try {
    const readAt = performance.now()
    for (const event of await store.readStream(streamId, entry.revision + 1)) {
      entry.state = decider.evolve(entry.state, event as unknown as Event)
      entry.revision = event.revision
      entry.position = event.position
    }
    entry.currentAt = readAt
  } catch (error) {
    snapshots.drop(streamId)
    throw error
  }
  // A long tail was just folded: keep the result, whatever is decided on it.
  await snapshots.maybePersist(streamId, entry)
  return entry
}

/**
 * The current state of a stream, folded (from its snapshot where the decider keeps them); with the
 * position of its last event. The state is for reading only: a snapshotted one is the cached copy.
 */
export async function readState<State, Command, Event extends { type: string; data: unknown }>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
): Promise<{ state: State; position: number }> {
  const snapshots = decider.snapshots ? snapshotsOf(store) : undefined
  if (snapshots)
    return snapshots.exclusive(streamId, async () => {
      const { state, position } = await currentEntry(store, snapshots, streamId, decider)
      return { state, position }
    })
  const recorded = await store.readStream(streamId)
  let state = decider.initialState()
  for (const event of recorded) state = decider.evolve(state, event as unknown as Event)
  return { state, position: recorded.at(-1)?.position ?? 0 }
}
