// handleCommands decides first from what it already knows: an account whose tail this process read a
// moment ago, a stream whose id was just minted. These tests count the reads that skips, and show that
// a guess gone stale (another process appended in between) still ends in the decision a full read
// gives: a lost append, a refusal or an empty decision is decided again from the stream itself.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountDecider } from '../../app/deciders.ts'
import { handleCommand, readState } from '../../app/handle-command.ts'
import { handleCommands, streamCommand } from '../../app/handle-commands.ts'
import { keepSnapshots, StreamSnapshots } from '../../app/stream-snapshots.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { accountStream } from '../../domain/account/events.ts'
import type { AccountState } from '../../domain/account/state.ts'
import type { EventStore } from '../../domain/ports/event-store.ts'
import { admit, grant, open, t0 } from '../domain/account-fixtures.ts'
import { overriding } from '../support/overriding.ts'

const stream = accountStream('acct_test')

/** The store with its stream reads and appends counted. */
function counted(store: EventStore) {
  const reads: string[] = []
  let appends = 0
  const proxy = overriding(store, {
    readStream: (streamId: string, from?: number) => {
      reads.push(streamId)
      return store.readStream(streamId, from)
    },
    appendMany: (...args: Parameters<EventStore['appendMany']>) => {
      appends++
      return store.appendMany(...args)
    },
  })
  keepSnapshots(proxy, new StreamSnapshots(null))
  return { store: proxy, reads, appends: () => appends }
}

const decide = (store: EventStore, command: AccountCommand, ...more: ReturnType<typeof streamCommand>[]) =>
  handleCommands(store, [streamCommand(stream, accountDecider, command), ...more])

describe('decisions from a recently read state', () => {
  let path: string
  let stores: SqliteEventStore[]
  beforeEach(() => {
    path = `/tmp/kiln-guessed-${process.pid}-${Math.random().toString(36).slice(2)}.db`
    stores = []
  })
  afterEach(async () => {
    for (const store of stores) await store.close()
  })
  const handle = () => {
    const store = new SqliteEventStore(path)
    stores.push(store)
    return store
  }

  it('appends without reading again a tail read a moment ago, and never reads a minted stream', async () => {
    const here = counted(handle())
    await handleCommand(here.store, stream, accountDecider, open(100))
    await readState(here.store, stream, accountDecider)
    here.reads.length = 0

    const minted = accountStream('acct_minted')
    const [admitted, opened] = await decide(
      here.store,
      admit('j_1', t0 + 1),
      streamCommand(minted, accountDecider, open(5), { fresh: true }),
    )
    expect(here.reads).toEqual([])
    expect(here.appends()).toBe(1)
    expect(admitted!.events.map((event) => event.type)).toEqual(['JobAdmitted'])
    expect(opened!.events.map((event) => event.type)).toContain('AccountOpened')
    expect((await here.store.readStream(minted)).map((event) => event.revision)).toEqual(
      opened!.events.map((_, revision) => revision),
    )

    // The cached state moved with the append: the next decision also reads nothing and is exact.
    here.reads.length = 0
    const second = await decide(here.store, admit('j_2', t0 + 2, { maxActiveJobs: 5 }))
    expect(here.reads).toEqual([])
    expect((second[0]!.state as AccountState).activeJobIds).toEqual(new Set(['j_1', 'j_2']))
  })

  /** This process opened the account and read it; then another process appended `elsewhere`. */
  const staleGuess = async (opening: AccountCommand, elsewhere: AccountCommand) => {
    const here = counted(handle())
    const there = handle()
    keepSnapshots(there, new StreamSnapshots(null))
    await handleCommand(here.store, stream, accountDecider, opening)
    await readState(here.store, stream, accountDecider)
    await handleCommand(there, stream, accountDecider, elsewhere)
    here.reads.length = 0
    return here
  }

  it('decides a stale guess again after its append loses: the key another process used answers', async () => {
    const here = await staleGuess(open(100), admit('j_there', t0 + 1, { key: 'k', hash: 'h' }))

    const [outcome] = await decide(here.store, admit('j_here', t0 + 2, { key: 'k', hash: 'h' }))
    expect(here.appends()).toBe(1)
    expect(here.reads).toEqual([stream])
    expect(outcome!.events).toEqual([])
    expect((outcome!.state as AccountState).idempotency.get('k')?.jobId).toBe('j_there')
    const admitted = (await here.store.readStream(stream)).filter((event) => event.type === 'JobAdmitted')
    expect(admitted.map((event) => (event.data as { jobId: string }).jobId)).toEqual(['j_there'])
  })

  it('decides a refusal from a stale guess again: credits granted elsewhere count', async () => {
    const here = await staleGuess(open(0), grant('lot_b', 50, t0, t0 + 1e9))

    const [outcome] = await decide(here.store, admit('j_1', t0 + 1))
    expect(here.reads).toEqual([stream])
    expect(outcome!.events.map((event) => event.type)).toEqual(['JobAdmitted'])
  })

  it('still refuses when the stream read agrees with the guess', async () => {
    const here = counted(handle())
    await handleCommand(here.store, stream, accountDecider, open(0))
    await readState(here.store, stream, accountDecider)
    here.reads.length = 0
    await expect(decide(here.store, admit('j_1', t0 + 1))).rejects.toMatchObject({
      code: 'insufficient_credits',
    })
    expect(here.reads).toEqual([stream])
    expect(here.appends()).toBe(0)
  })

  it('reads a tail not known to be current: a cold cache, or a read older than the trusted window', async () => {
    const here = counted(handle())
    await handleCommand(here.store, stream, accountDecider, open(100))
    // A new process: nothing cached yet.
    const cold = counted(handle())
    await decide(cold.store, admit('j_1', t0 + 1, { maxActiveJobs: 5 }))
    expect(cold.reads).toEqual([stream])

    // Known current a second and more ago: read again.
    await readState(here.store, stream, accountDecider)
    here.reads.length = 0
    const later = performance.now() + 1_500
    vi.spyOn(performance, 'now').mockReturnValue(later)
    try {
      const [outcome] = await decide(here.store, admit('j_2', t0 + 2, { maxActiveJobs: 5 }))
      expect(here.reads).toEqual([stream])
      expect((outcome!.state as AccountState).activeJobIds).toEqual(new Set(['j_1', 'j_2']))
    } finally {
      vi.restoreAllMocks()
    }
  })
})
