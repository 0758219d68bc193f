// What clients see of failures (issue 20 item 18). Job failures from workers: a tool's unexpected
// failure is `internal` with a generic message, and a tool error keeps its code with the path and
// errno taken out of its message. Internal failures of a REST request or an MCP call: the stable
// code `internal`, a generic message (REST: with the request id the log line carries), no detail.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { expectNoInternals } from '../support/leaks.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'

const leakyRunner = new URL('./fixtures/leaky-runner.ts', import.meta.url).pathname

describe('job failure messages', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService(
      { maxJobAttempts: 1, rateLimit: { perSecond: 1000, burst: 1000 } },
      { plugins: [(app) => registerMcp(app, app.services)] },
    )
    ann = await service.account({ login: 'ann', credits: 20 })
  })
  afterEach(() => {
    delete process.env.KILN_TEST_RUNNER_MODULE
  })
  afterAll(() => service?.close())

  async function failedJob(count: number) {
    process.env.KILN_TEST_RUNNER_MODULE = leakyRunner
    const created = await ann.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { options: { count }, idempotency_key: `leak-${count}` },
    })
    expect(created.status).toBe(202)
    const job = await waitForJob(ann, ((await created.json()) as { id: string }).id)
    expectNoInternals(JSON.stringify(job), `job ${count}`)
    return job as { status: string; error: { code: string; message: string } }
  }

  it('shows an unexpected tool failure as internal with a generic message', async () => {
    const job = await failedJob(1)
    expect(job.status).toBe('failed')
    expect(job.error).toMatchObject({ code: 'internal', message: 'The tool failed unexpectedly.' })
  })

  it('keeps a tool error code and takes the path and errno out of its message', async () => {
    const job = await failedJob(2)
    expect(job.status).toBe('failed')
    expect(job.error.code).toBe('invalid_mesh')
    expect(job.error.message).toContain('cannot read')
  })

  async function withBrokenReadStore<T>(work: () => Promise<T>): Promise<T> {
    const models = service.services.models
    const original = models.collection.bind(models)
    // Only the jobs model fails: credentials still authenticate, and the failure is the call's own.
    models.collection = (async (model: string, name: string) => {
      if (model === 'jobs') throw new Error("EIO: i/o error, read '/var/lib/kiln/data/read.sqlite'")
      return original(model, name)
    }) as typeof models.collection
    try {
      return await work()
    } finally {
      models.collection = original
    }
  }

  it('answers an internal REST failure with code internal and the request id, no detail', async () => {
    const response = await withBrokenReadStore(() => ann.request('/v1/jobs'))
    expect(response.status).toBe(500)
    const text = await response.text()
    expectNoInternals(text, 'REST')
    const body = JSON.parse(text) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('internal')
    expect(body.error.message).toContain(response.headers.get('request-id')!)
  })

  it('answers an internal MCP tool failure with code internal, no detail', async () => {
    const response = await withBrokenReadStore(() =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ann.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_job', arguments: { job_id: `j_${'a'.repeat(26)}` } },
        }),
      }),
    )
    expect(response.status).toBe(200)
    const text = await response.text()
    expectNoInternals(text, 'MCP')
    expect(text).toContain('"isError":true')
    expect(text).toMatch(/\\?"code\\?":\\?"internal/)
  })
})
