// What a call returns while its job is still waiting: the job with a note on how to follow it, never
// a call held past its bound. Jobs are not consumed here, so the first one stays queued.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createJob } from '../../app/jobs/create-job.ts'
import { cancelJob } from '../../app/jobs/job-actions.ts'
import { connect, errorOf, structuredOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

const waitMs = 400
let server: McpTestServer
let key: string

beforeAll(async () => {
  server = await startMcpTestServer({ consumeJobs: false, waitMs })
  ;({ key } = await server.account(20))
})
afterAll(() => server.close())

it('returns a queued job after the bounded wait, refuses a second with a retry time, and cancels the first', async () => {
  const client = await connect(`${server.baseUrl}/mcp/random`, key)
  const started = Date.now()
  const progress: number[] = []
  const first = await client.callTool(
    { name: 'get_random_numbers', arguments: { idempotency_key: 'slow' } },
    { onprogress: ({ progress: value }) => progress.push(value) },
  )
  expect(Date.now() - started).toBeLessThan(waitMs + 2000)
  const job = structuredOf(first)
  expect(job).toMatchObject({ status: 'queued', credits_charged: null })
  expect(first.isError).toBeFalsy()
  expect(first.content).toContainEqual({
    type: 'text',
    text: expect.stringMatching(new RegExp(`get_job with job_id "${job.id}"`)),
  })
  expect(progress).toEqual([0])

  const followed = structuredOf(
    await client.callTool({ name: 'get_job', arguments: { job_id: job.id, wait_seconds: 0 } }),
  )
  expect(followed).toMatchObject({ id: job.id, status: 'queued' })

  const second = errorOf(
    await client.callTool({ name: 'get_random_numbers', arguments: { idempotency_key: 'second' } }),
  )
  expect(second).toMatchObject({ code: 'too_many_active_jobs', retry_after_seconds: 5 })

  const canceled = structuredOf(await client.callTool({ name: 'cancel_job', arguments: { job_id: job.id } }))
  expect(canceled).toEqual({ id: job.id, status: 'canceled' })
  const after = structuredOf(await client.callTool({ name: 'get_job', arguments: { job_id: job.id } }))
  expect(after.status).toBe('canceled')
  await client.close()
})

it('counts the rolling daily quota and says when to retry', async () => {
  const { accountId, key: quotaKey } = await server.account(0)
  // get_random_bytes is free and allows 100 jobs a day before a purchase; each is canceled so the
  // active-job limit never binds. They are made through the services: only the refusal matters here.
  for (let i = 0; i < 100; i++) {
    const { jobId } = await createJob(server.services.ctx, {
      accountId,
      tool: 'get_random_bytes',
      options: {},
      input: { kind: 'none' },
      idempotencyKey: null,
    })
    await cancelJob(server.services.ctx, accountId, jobId)
  }
  const client = await connect(`${server.baseUrl}/mcp/random`, quotaKey)
  const error = errorOf(
    await client.callTool({ name: 'get_random_bytes', arguments: { idempotency_key: 'one-more' } }),
  )
  expect(error.code).toBe('quota_exceeded')
  expect(error.retry_after_seconds).toBeGreaterThan(86_000)
  expect(error.message).toMatch(/purchase/)
  await client.close()
})
