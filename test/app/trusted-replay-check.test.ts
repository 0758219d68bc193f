// A job of parameters only, of a tool that reserves no capacity, skips the replay check's read when
// this process knew the account current a moment ago: nothing costly comes before the decision,
// which reads the stream whenever that state went stale. What such a check finds, and a replay at
// capacity, is still looked for on the stream: a key another process answered a moment ago is
// answered with its job, not refused as busy.
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import type { ServiceContext } from '../../app/context.ts'
import { createJob } from '../../app/jobs/create-job.ts'
import { keepSnapshots, StreamSnapshots, snapshotsOf } from '../../app/stream-snapshots.ts'
import { accountStream } from '../../domain/account/events.ts'
import { overriding } from '../support/overriding.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService
let other: SqliteEventStore

beforeAll(async () => {
  // One queued job fills the queue; nothing consumes it.
  service = await startTestService({ maxQueuedJobs: 1, maxActiveJobsPerAccount: 100 }, { consumeJobs: false })
  // Another process on the same files: its own connection and its own snapshots.
  other = new SqliteEventStore(join(service.services.ctx.config.dataDir, 'events.db'))
  keepSnapshots(other, new StreamSnapshots(null))
})
afterAll(async () => {
  await other?.close()
  await service?.close()
})

const randomBytes = (accountId: string, idempotencyKey: string | null) => ({
  accountId,
  tool: 'get_random_bytes',
  options: {},
  input: { kind: 'none' as const },
  idempotencyKey,
})

/** The context with its store's stream reads recorded (the same snapshots, so the same trust). */
function countingReads(ctx: ServiceContext): { ctx: ServiceContext; reads: string[] } {
  const reads: string[] = []
  const store = overriding(ctx.store, {
    readStream: (streamId: string, from?: number) => {
      reads.push(streamId)
      return ctx.store.readStream(streamId, from)
    },
  })
  keepSnapshots(store, snapshotsOf(ctx.store)!)
  return { ctx: { ...ctx, store }, reads }
}

it('reads no stream to start a job on an account it knew current a moment ago; a replay is confirmed on the stream', async () => {
  const { ctx } = service.services
  const { accountId } = await service.account({ credits: 0, login: 'trusting' })
  const roomy = { ...ctx, config: { ...ctx.config, maxQueuedJobs: 1_000 } }
  const first = await createJob(roomy, randomBytes(accountId, 'first'))
  const counted = countingReads(roomy)
  const second = await createJob(counted.ctx, randomBytes(accountId, 'second'))
  expect(second.created).toBe(true)
  expect(counted.reads).toEqual([])
  const again = await createJob(counted.ctx, randomBytes(accountId, 'first'))
  expect(again).toMatchObject({ jobId: first.jobId, created: false })
  expect(counted.reads).toContain(accountStream(accountId))
})

it('a key another process answered a moment ago is answered with its job at capacity, not refused as busy', async () => {
  const { ctx } = service.services
  const { accountId } = await service.account({ credits: 0, login: 'elsewhere' })
  // This process fills the queue and so knows the account current.
  await createJob({ ...ctx, config: { ...ctx.config, maxQueuedJobs: 1_000 } }, randomBytes(accountId, 'mine'))
  // The other process, with room in its queue, answers the key.
  const theirs = await createJob(
    { ...ctx, store: other, config: { ...ctx.config, maxQueuedJobs: 1_000 } },
    randomBytes(accountId, 'shared'),
  )
  expect(theirs.created).toBe(true)
  const head = await ctx.store.headPosition()
  const retried = await createJob(ctx, randomBytes(accountId, 'shared'))
  expect(retried).toMatchObject({ jobId: theirs.jobId, created: false })
  expect(await ctx.store.headPosition()).toBe(head)
  // A new key at capacity is still busy.
  await expect(createJob(ctx, randomBytes(accountId, 'new'))).rejects.toMatchObject({ code: 'busy' })
})

it('a key another process answered is found by the decision when the queue has room', async () => {
  const { ctx } = service.services
  const roomy = { ...ctx, config: { ...ctx.config, maxQueuedJobs: 1_000 } }
  const { accountId } = await service.account({ credits: 0, login: 'racing' })
  await createJob(roomy, randomBytes(accountId, 'mine'))
  const theirs = await createJob({ ...roomy, store: other }, randomBytes(accountId, 'shared'))
  const head = await ctx.store.headPosition()
  const retried = await createJob(roomy, randomBytes(accountId, 'shared'))
  expect(retried).toMatchObject({ jobId: theirs.jobId, created: false })
  expect(await ctx.store.headPosition()).toBe(head)
})
