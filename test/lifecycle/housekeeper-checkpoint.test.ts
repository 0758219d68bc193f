// The housekeeper resumes from its checkpoint: a second housekeeper (a restart, or the process that
// takes the lease over) subscribes from the checkpoint's position, not from 0, and ends with exactly
// the pending state a housekeeper folding the whole log from 0 reaches.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grantCredits, openAccount } from '../../app/accounts.ts'
import { loadConfig } from '../../app/config.ts'
import type { ServiceContext } from '../../app/context.ts'
import { createJob } from '../../app/jobs/create-job.ts'
import { type Services, startServices } from '../../app/services.ts'
import { openReadStore } from '../../app/stores.ts'
import { createUpload } from '../../app/uploads.ts'
import type { SubscribeOptions } from '../../domain/ports/event-store.ts'
import type { ReadStore } from '../../projections/read-store.ts'
import { type CheckpointStore, Housekeeper, type HousekeepingCheckpoint } from '../../workers/housekeeper.ts'
import { housekeepingCheckpoints } from '../../workers/housekeeping-checkpoints.ts'
import { pollUntil } from './support/jobs.ts'

/** The context with its store's subscriptions watched: where each one started, and what it saw. */
function watched(ctx: ServiceContext) {
  const seen = { from: [] as number[], events: 0 }
  const store = new Proxy(ctx.store, {
    get(target, property, receiver) {
      if (property === 'subscribeToAll')
        return (options: SubscribeOptions) => {
          seen.from.push(options.fromPosition)
          return target.subscribeToAll({
            ...options,
            onEvent: (event) => {
              seen.events++
              return options.onEvent(event)
            },
          })
        }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { ctx: { ...ctx, store }, seen }
}

/** Captures what a housekeeper would checkpoint, without keeping it. */
function capture(): CheckpointStore & { last: HousekeepingCheckpoint | null } {
  const sink = {
    last: null as HousekeepingCheckpoint | null,
    async load() {
      return null
    },
    async save(checkpoint: HousekeepingCheckpoint) {
      sink.last = checkpoint
    },
  }
  return sink
}

const comparable = (checkpoint: HousekeepingCheckpoint) => ({
  ...checkpoint,
  jobs: checkpoint.jobs.map(([id, job]) => [id, { ...job, publishedAt: 0 }]).sort(),
})

describe('housekeeper checkpoints', () => {
  let dataDir: string
  let services: Services
  let reads: ReadStore

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kiln-housekeeping-'))
    const config = loadConfig({ DATA_DIR: dataDir, MAX_ACTIVE_JOBS: '50', SIGNING_SECRET: 'x'.repeat(32) })
    services = await startServices(config, { consumeJobs: false, project: false })
    reads = await openReadStore(config)
  })
  afterAll(async () => {
    await reads?.close()
    await services?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function history(count: number, prefix: string) {
    const { accountId } = await openAccount(services.ctx, { login: prefix, email: null, credits: 0 })
    await grantCredits(services.ctx, accountId, { credits: 500, kind: 'pack' })
    await createUpload(services.ctx, accountId, 'model.glb', {
      pendingUploads: 0,
      nextPendingExpiry: null,
      storedBytes: 0,
    })
    for (let i = 0; i < count; i++)
      await createJob(services.ctx, {
        accountId,
        tool: 'get_random_numbers',
        options: { count: 2 },
        input: { kind: 'none' },
        idempotencyKey: `${prefix}-${i}`,
      })
  }

  it('resumes from the stored checkpoint and reaches the state of a fold from 0', async () => {
    await history(20, 'before')
    const first = new Housekeeper(services.ctx, {
      intervalMs: 3_600_000,
      checkpoints: housekeepingCheckpoints(reads),
    })
    await first.start()
    await pollUntil(async () => first.caughtUp, Boolean)
    await first.checkpointNow()
    const checkpointed = first.position
    await first.stop()
    expect(checkpointed).toBeGreaterThan(0)

    await history(5, 'after')
    const head = await services.ctx.store.headPosition()

    // Resumed: subscribes from the checkpoint and sees only what came after it.
    const resumed = watched(services.ctx)
    const resumedState = capture()
    const second = new Housekeeper(resumed.ctx, {
      intervalMs: 3_600_000,
      checkpoints: {
        load: () => housekeepingCheckpoints(reads).load(),
        save: (checkpoint) => resumedState.save(checkpoint),
      },
    })
    await second.start()
    await pollUntil(
      async () => second.position,
      (position) => position >= head,
    )
    await second.checkpointNow()
    await second.stop()
    expect(resumed.seen.from).toEqual([checkpointed])
    const afterCheckpoint = (await services.ctx.store.readAll(checkpointed, 10_000)).length
    expect(resumed.seen.events).toBe(afterCheckpoint)

    // From zero: the same pending state.
    const full = watched(services.ctx)
    const fullState = capture()
    const third = new Housekeeper(full.ctx, { intervalMs: 3_600_000, checkpoints: fullState })
    await third.start()
    await pollUntil(
      async () => third.position,
      (position) => position >= head,
    )
    await third.checkpointNow()
    await third.stop()
    expect(full.seen.from).toEqual([0])
    expect(full.seen.events).toBeGreaterThan(resumed.seen.events)

    expect(comparable(resumedState.last!)).toEqual(comparable(fullState.last!))
    expect(resumedState.last!.jobs).toHaveLength(25)
    expect(resumedState.last!.uploads).toHaveLength(2)
    expect(resumedState.last!.lots).toHaveLength(2)
  })
})
