// handleCommand over several streams that must change together (a job's admission on its account,
// the job's own stream, the upload it uses): each stream is read and decided as handleCommand would,
// and every decided event goes to the store in ONE append (appendMany) with each stream's expected
// revision, so they are durable together after one commit, or not at all. A concurrent write to any
// of them fails the whole append; then all are read and decided again.
//
// The first decision may skip reads: a stream whose id was just minted has no events, and a
// snapshotted stream whose tail this process read (or appended to) a moment ago is most likely still
// at that revision. Such a guess is always safe to append, since the expected revisions make a stale
// one fail as a conflict; but a guessed state may refuse or change nothing where the real one would
// not, so those answers, and conflicts, are decided again from streams actually read.

import type { EventStore } from '../domain/ports/event-store.ts'
import { type StreamAppend, WrongExpectedVersionError } from '../domain/ports/event-store.ts'
import { currentEntry, type Decider, toNewEvents } from './handle-command.ts'
import { type CachedStream, type StreamSnapshots, snapshotsOf } from './stream-snapshots.ts'

type AnyEvent = { type: string; data: unknown }

/** A command for one stream; the decider's types are erased so commands of several streams share a list. */
export interface StreamCommand {
  readonly streamId: string
  readonly decider: Decider<unknown, unknown, AnyEvent>
  readonly command: unknown
  /** The stream's id was minted for this command (a new job's): it has no events to read. */
  readonly fresh: boolean
}

export const streamCommand = <State, Command, Event extends AnyEvent>(
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  { fresh = false }: { fresh?: boolean } = {},
): StreamCommand => ({
  streamId,
  decider: decider as unknown as Decider<unknown, unknown, AnyEvent>,
  command,
  fresh,
})

/** How long after a stream was last known at its head the first decision still trusts that state. */
const trustedForMs = 1_000

/**
 * The state of a snapshotted stream as this process last knew it at its head, if that was within
 * the window the first decision trusts; else null. For reading only, like any cached state.
 */
export function recentState<State>(store: EventStore, streamId: string): State | null {
  return snapshotsOf(store)?.recent<State>(streamId, trustedForMs)?.state ?? null
}

export interface StreamOutcome {
  streamId: string
  /** What was appended to this stream (empty when its command changed nothing). */
  events: AnyEvent[]
  /** The stream's state after the command (cast it to the decider's state type). */
  state: unknown
  /** Global position of the stream's last event. */
  position: number
}

interface Current {
  state: unknown
  revision: number
  position: number
  /** The snapshot entry this state is, for streams whose decider keeps snapshots. */
  entry: CachedStream<unknown> | null
  /** Trusted from a recent read without reading again (see the top of this file). */
  guessed: boolean
}

/**
 * Decides every command and appends all their events at once. The first command is the gate: when
 * it decides nothing (e.g. an idempotency key already answered), nothing is appended at all.
 */
export async function handleCommands(
  store: EventStore,
  commands: readonly [StreamCommand, ...StreamCommand[]],
  { retries = 50 }: { retries?: number } = {},
): Promise<StreamOutcome[]> {
  const snapshots = snapshotsOf(store)
  const run = () => decideAndAppend(store, snapshots, commands, retries)
  if (!snapshots) return run()
  // Snapshotted streams are used exclusively, locked in one order so two callers cannot deadlock.
  const locked = [...new Set(commands.filter((c) => c.decider.snapshots).map((c) => c.streamId))].sort()
  const withLocks = locked.reduceRight<() => Promise<StreamOutcome[]>>(
    (inner, streamId) => () => snapshots.exclusive(streamId, inner),
    run,
  )
  return withLocks()
}

async function readCurrent(
  store: EventStore,
  snapshots: StreamSnapshots | undefined,
  { streamId, decider, fresh }: StreamCommand,
  mayGuess: boolean,
): Promise<Current> {
  // Exact, not a guess: nothing can have been appended under an id nobody else knows yet.
  if (mayGuess && fresh)
    return { state: decider.initialState(), revision: -1, position: 0, entry: null, guessed: false }
  if (snapshots && decider.snapshots) {
    const recent = mayGuess ? snapshots.recent(streamId, trustedForMs) : null
    const entry = recent ?? (await currentEntry(store, snapshots, streamId, decider))
    return {
      state: entry.state,
      revision: entry.revision,
      position: entry.position,
      entry,
      guessed: recent !== null,
    }
  }
  const recorded = await store.readStream(streamId)
  let state = decider.initialState()
  for (const event of recorded) state = decider.evolve(state, event as unknown as AnyEvent)
  return {
    state,
    revision: recorded.at(-1)?.revision ?? -1,
    position: recorded.at(-1)?.position ?? 0,
    entry: null,
    guessed: false,
  }
}

async function decideAndAppend(
  store: EventStore,
  snapshots: StreamSnapshots | undefined,
  commands: readonly StreamCommand[],
  retries: number,
): Promise<StreamOutcome[]> {
  let mayGuess = true
  for (let attempt = 0; ; attempt++) {
    const current = await Promise.all(
      commands.map((command) => readCurrent(store, snapshots, command, mayGuess)),
    )
    const guessed = current.some((stream) => stream.guessed)
    mayGuess = false
    const decided: AnyEvent[][] = []
    try {
      for (const [i, { decider, command }] of commands.entries()) {
        decided.push(decider.decide(command, current[i]!.state))
        if (i === 0 && decided[0]!.length === 0) break
      }
    } catch (refusal) {
      if (guessed) continue
      throw refusal
    }
    if (guessed && decided[0]!.length === 0) continue
    const unchanged = (i: number): StreamOutcome => ({
      streamId: commands[i]!.streamId,
      events: [],
      state: current[i]!.state,
      position: current[i]!.position,
    })
    if (decided[0]!.length === 0) return commands.map((_, i) => unchanged(i))

    const appends: StreamAppend[] = []
    const appended: number[] = []
    for (const [i, events] of decided.entries()) {
      if (events.length === 0) continue
      const { streamId } = commands[i]!
      const { revision } = current[i]!
      appends.push({
        streamId,
        events: toNewEvents(streamId, events),
        expected: revision === -1 ? 'no_stream' : revision,
      })
      appended.push(i)
    }
    let results: Awaited<ReturnType<EventStore['appendMany']>>
    try {
      results = await store.appendMany(appends)
    } catch (error) {
      // A conflict leaves cached states exact (nothing was folded); anything else may not.
      if (!(error instanceof WrongExpectedVersionError))
        for (const { streamId, decider } of commands) if (decider.snapshots) snapshots?.drop(streamId)
      if (!(error instanceof WrongExpectedVersionError) || attempt >= retries) throw error
      // A stale guess is not a race: read and decide again at once.
      if (guessed) continue
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))
      continue
    }

    const outcomes = commands.map((_, i) => unchanged(i))
    for (const [k, i] of appended.entries()) {
      const { decider, streamId } = commands[i]!
      const events = decided[i]!
      const now = current[i]!
      let state = now.state
      for (const event of events) state = decider.evolve(state, event)
      const position = results[k]!.position
      outcomes[i] = { streamId, events, state, position }
      if (now.entry) {
        now.entry.state = state
        now.entry.revision += events.length
        now.entry.position = position
        now.entry.currentAt = performance.now()
        await snapshots?.maybePersist(streamId, now.entry)
      }
    }
    return outcomes
  }
}
