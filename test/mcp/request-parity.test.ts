// REST and MCP turn a request into a job with one function (app/jobs/job-request.ts): the same bad
// request gets the same error code and message on both surfaces.
import type { Client } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, errorOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

const jobId = `j_${'a'.repeat(26)}`
const uploadId = `up_${'b'.repeat(26)}`

/** One bad request in both shapes: REST's JSON body, and MCP's arguments (options at the top level). */
const cases: { name: string; tool: string; rest: Record<string, unknown>; mcp: Record<string, unknown> }[] = [
  { name: 'no source for a file tool', tool: 'split_3d_model', rest: {}, mcp: {} },
  {
    name: 'two sources',
    tool: 'split_3d_model',
    rest: { upload_id: uploadId, url: 'https://example.com/a.glb' },
    mcp: { upload_id: uploadId, url: 'https://example.com/a.glb' },
  },
  {
    name: 'job_file for a tool that does not take it',
    tool: 'split_3d_model',
    rest: { job_file: { job_id: jobId, name: 'a.glb' } },
    mcp: { job_file: { job_id: jobId, name: 'a.glb' } },
  },
  {
    name: 'a malformed upload id',
    tool: 'split_3d_model',
    rest: { upload_id: 'up_nope' },
    mcp: { upload_id: 'up_nope' },
  },
  {
    name: 'a file for a parameters tool',
    tool: 'get_random_numbers',
    rest: { url: 'https://example.com/a.glb', idempotency_key: 'k' },
    mcp: { url: 'https://example.com/a.glb', idempotency_key: 'k' },
  },
  {
    name: 'an idempotency key over 100 characters',
    tool: 'get_random_numbers',
    rest: { options: { count: 3 }, idempotency_key: 'k'.repeat(101) },
    mcp: { count: 3, idempotency_key: 'k'.repeat(101) },
  },
  {
    name: 'an empty idempotency key',
    tool: 'get_random_numbers',
    rest: { options: { count: 3 }, idempotency_key: '' },
    mcp: { count: 3, idempotency_key: '' },
  },
  {
    name: 'a missing required idempotency key',
    tool: 'get_random_numbers',
    rest: { options: { count: 3 } },
    mcp: { count: 3 },
  },
  {
    name: 'an option of the wrong type',
    tool: 'get_random_numbers',
    rest: { options: { count: 'many' }, idempotency_key: 'k' },
    mcp: { count: 'many', idempotency_key: 'k' },
  },
  {
    name: 'an unknown option',
    tool: 'get_random_numbers',
    rest: { options: { count: 3, colour: 'red' }, idempotency_key: 'k' },
    mcp: { count: 3, colour: 'red', idempotency_key: 'k' },
  },
]

let server: McpTestServer
let key: string
let client: Client

beforeAll(async () => {
  server = await startMcpTestServer({ withRest: true, consumeJobs: false })
  ;({ key } = await server.account(100))
  client = await connect(`${server.baseUrl}/mcp`, key)
})

afterAll(async () => {
  await client?.close()
  await server?.close()
})

describe('REST and MCP refuse the same request alike', () => {
  it.each(cases)('$name', async ({ tool, rest, mcp }) => {
    const response = await fetch(`${server.baseUrl}/v1/tools/${tool}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(rest),
    })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    const restError = ((await response.json()) as { error: { code: string; message: string } }).error
    const { code, message } = errorOf(await client.callTool({ name: tool, arguments: mcp }))
    expect({ code, message }).toEqual(restError)
  })

  it('the header key and the field key must agree, and one header only', async () => {
    const send = (headers: [string, string][]) =>
      fetch(`${server.baseUrl}/v1/tools/get_random_numbers/jobs`, {
        method: 'POST',
        headers: [['authorization', `Bearer ${key}`], ['content-type', 'application/json'], ...headers],
        body: JSON.stringify({ options: { count: 3 }, idempotency_key: 'field' }),
      })
    const differ = await send([['idempotency-key', 'header']])
    expect([differ.status, ((await differ.json()) as { error: unknown }).error]).toEqual([
      400,
      { code: 'invalid_request', message: 'The Idempotency-Key header and idempotency_key differ.' },
    ])
    const tooLong = await send([['idempotency-key', 'h'.repeat(101)]])
    expect([tooLong.status, ((await tooLong.json()) as { error: unknown }).error]).toEqual([
      400,
      { code: 'invalid_request', message: 'An idempotency key has 1 to 100 characters.' },
    ])
  })
})
