// Job creation appends the admission and the job's stream in one commit. Racing creations on one
// account still meet the account's rules exactly (the account decision is the guard: a conflict is
// read and decided again), and no job stream exists without its admission, nor the reverse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountDecider } from '../../app/deciders.ts'
import { readState } from '../../app/handle-command.ts'
import { createJob } from '../../app/jobs/create-job.ts'
import { accountStream } from '../../domain/account/events.ts'
import { isDomainError } from '../../domain/errors.ts'
import { jobStream } from '../../domain/job/events.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService

beforeAll(async () => {
  service = await startTestService({ maxActiveJobsPerAccount: 3 }, { consumeJobs: false })
})
afterAll(() => service?.close())

describe('racing job creations on one account', () => {
  it('admit exactly the active-job limit, each with its job stream, and refuse the rest whole', async () => {
    const { ctx } = service.services
    const { accountId } = await service.account({ credits: 0, login: 'racer' })
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        createJob(ctx, {
          accountId,
          tool: 'get_random_bytes',
          options: {},
          input: { kind: 'none' },
          idempotencyKey: null,
        }),
      ),
    )
    const created = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    expect(created).toHaveLength(3)
    for (const r of settled)
      if (r.status === 'rejected') {
        expect(isDomainError(r.reason)).toBe(true)
        expect((r.reason as { code: string }).code).toBe('too_many_active_jobs')
      }
    const account = await ctx.store.readStream(accountStream(accountId))
    const admitted = account
      .filter((e) => e.type === 'JobAdmitted')
      .map((e) => (e.data as { jobId: string }).jobId)
    expect(admitted.sort()).toEqual(created.map((c) => c.jobId).sort())
    for (const { jobId, createdEvent, position } of created) {
      const events = await ctx.store.readStream(jobStream(jobId))
      expect(events.map((e) => e.type)).toEqual(['JobCreated'])
      expect(events[0]!.data).toEqual(createdEvent)
      expect(position).toBe(events[0]!.position)
    }
    const { state } = await readState(ctx.store, accountStream(accountId), accountDecider)
    expect(state.activeJobIds.size).toBe(3)
  })

  it('a replayed idempotency key appends nothing and answers the first job', async () => {
    const { ctx } = service.services
    const { accountId } = await service.account({ credits: 0, login: 'replayer' })
    const request = {
      accountId,
      tool: 'get_random_bytes',
      options: {},
      input: { kind: 'none' as const },
      idempotencyKey: 'once',
    }
    const answers = await Promise.all([createJob(ctx, request), createJob(ctx, request)])
    expect(answers[1]!.jobId).toBe(answers[0]!.jobId)
    expect(answers.filter((a) => a.created)).toHaveLength(1)
    const head = await ctx.store.headPosition()
    const again = await createJob(ctx, request)
    expect(again).toMatchObject({ jobId: answers[0]!.jobId, created: false })
    expect(await ctx.store.headPosition()).toBe(head)
  })
})
