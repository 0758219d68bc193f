// A tool call from start to finished job over both protocol eras, retries with the same key, progress,
// and each refusal as a tool error carrying REST's code and message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJob } from '../../app/jobs/create-job.ts'
import { connect, connectV1, type Era, errorOf, structuredOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

let server: McpTestServer
let account: { accountId: string; key: string }

beforeAll(async () => {
  server = await startMcpTestServer({ env: { MAX_ACTIVE_JOBS: '4' } })
  account = await server.account(50)
})
afterAll(() => server.close())

describe.each<Era>(['modern', 'legacy'])('a random numbers job over the %s era', (era) => {
  it('finishes within the call, reports progress, and a retry with the same key returns the same job', async () => {
    const client = await connect(`${server.baseUrl}/mcp/random`, account.key, era)
    const progress: number[] = []
    const call = () =>
      client.callTool(
        {
          name: 'get_random_numbers',
          arguments: { count: 5, min: 1, max: 6, idempotency_key: `dice-${era}` },
        },
        { onprogress: ({ progress: value }) => progress.push(value) },
      )
    const first = structuredOf(await call())
    expect(first).toMatchObject({ tool: 'get_random_numbers', status: 'succeeded', credits_charged: 1 })
    const numbers = (first.result as { numbers: number[] }).numbers
    expect(numbers).toHaveLength(5)
    for (const n of numbers) expect(n >= 1 && n <= 6 && Number.isInteger(n)).toBe(true)
    expect(progress.at(-1)).toBe(100)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))

    const again = structuredOf(await call())
    expect(again.id).toBe(first.id)
    expect((again.result as { numbers: number[] }).numbers).toEqual(numbers)

    const followed = structuredOf(await client.callTool({ name: 'get_job', arguments: { job_id: first.id } }))
    expect(followed).toMatchObject({ id: first.id, status: 'succeeded' })
    const page = structuredOf(
      await client.callTool({ name: 'list_jobs', arguments: { tool: 'get_random_numbers' } }),
    )
    expect((page.jobs as { id: string }[]).filter((job) => job.id === first.id)).toHaveLength(1)
    await client.close()
  })
})

describe('protocol eras on the wire', () => {
  const headers = {
    authorization: '',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${account.key}`, ...extra },
      body: JSON.stringify(body),
    })
  /** The first JSON-RPC message of a JSON or SSE response. */
  const messageOf = async (response: Response) => {
    const text = await response.text()
    const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1]
    return JSON.parse(data ?? 'null')
  }

  it('answers a 2025-06-18 initialize with that revision', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'old-agent', version: '1' },
      },
    })
    expect(response.status).toBe(200)
    expect((await messageOf(response)).result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'kiln' },
    })
  })

  it('answers a stateless 2026-07-28 request without any handshake', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'new-agent', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    const response = await post(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    const names = ((await messageOf(response)).result.tools as { name: string }[]).map((tool) => tool.name)
    expect(names).toContain('get_random_bytes')
  })

  it('serves the v1 SDK client (2025-11-25)', async () => {
    const client = await connectV1(`${server.baseUrl}/mcp/random`, account.key)
    const result = await client.callTool({
      name: 'get_random_numbers',
      arguments: { count: 2, idempotency_key: 'v1' },
    })
    expect(result.structuredContent).toMatchObject({
      status: 'succeeded',
      result: { numbers: [expect.any(Number), expect.any(Number)] },
    })
    await client.close()
  })
})

describe('a job with an output file', () => {
  it('links the output, reads it in chunks, and gives fresh download links', async () => {
    const client = await connect(`${server.baseUrl}/mcp/random`, account.key)
    const result = await client.callTool({ name: 'get_random_bytes', arguments: { length: 8 } })
    const job = structuredOf(result)
    expect(job.status).toBe('succeeded')
    const [file] = (job.result as { files: { name: string; url: string; bytes: number }[] }).files
    expect(file).toBeDefined()
    const link = {
      type: 'resource_link',
      uri: file!.url,
      name: file!.name,
      mimeType: 'application/json',
      size: file!.bytes,
    }
    expect(result.content).toContainEqual(link)
    expect(new URL(file!.url).pathname).toBe(`/v1/downloads/${job.id}/${file!.name}`)

    let text = ''
    let offset = 0
    for (let eof = false; !eof; ) {
      const chunk = structuredOf(
        await client.callTool({
          name: 'read_job_file',
          arguments: { job_id: job.id, name: file!.name, offset, limit: 16 },
        }),
      )
      text += chunk.text
      offset = chunk.next_offset as number
      eof = chunk.eof as boolean
    }
    expect(offset).toBe(file!.bytes)
    expect(JSON.parse(text)).toMatchObject({ bytes: expect.stringMatching(/^[0-9a-f]{16}$/), length: 8 })

    const links = structuredOf(
      await client.callTool({ name: 'get_download_links', arguments: { job_id: job.id } }),
    )
    expect(links).toMatchObject({
      job_id: job.id,
      status: 'succeeded',
      files: [{ name: file!.name, bytes: file!.bytes }],
    })
    await client.close()
  })
})

describe('refusals are tool errors with the REST code and message', () => {
  it('invalid_options, with the message createJob gives REST', async () => {
    const options = { count: 5000 }
    const rest = await createJob(server.services.ctx, {
      accountId: account.accountId,
      tool: 'get_random_numbers',
      options,
      input: { kind: 'none' },
      idempotencyKey: 'too-many',
    }).catch((error: Error) => error)
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    const error = errorOf(
      await client.callTool({
        name: 'get_random_numbers',
        arguments: { ...options, idempotency_key: 'too-many' },
      }),
    )
    expect(error).toMatchObject({
      code: 'invalid_options',
      message: (rest as Error).message,
      hint: expect.any(String),
    })
    expect(error.message).toContain('count')
    await client.close()
  })

  it('invalid_request when a key the tool requires is missing, or a file is given to a parameter tool', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    expect(errorOf(await client.callTool({ name: 'get_random_numbers', arguments: { count: 1 } })).code).toBe(
      'invalid_request',
    )
    const withFile = await client.callTool({
      name: 'get_random_bytes',
      arguments: { url: 'https://example.com/a.bin' },
    })
    expect(errorOf(withFile).code).toBe('invalid_request')
    await client.close()
  })

  it('insufficient_credits for an account without credits', async () => {
    const poor = await server.account(0)
    const client = await connect(`${server.baseUrl}/mcp/random`, poor.key)
    const error = errorOf(
      await client.callTool({ name: 'get_random_numbers', arguments: { idempotency_key: 'broke' } }),
    )
    expect(error.code).toBe('insufficient_credits')
    expect(error.message).toMatch(/costs at least 1 credits; the available balance is 0/)
    await client.close()
  })

  it('not_found for another account’s job, a missing job, or a missing file', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    const bytes = structuredOf(await client.callTool({ name: 'get_random_bytes', arguments: {} }))
    const stranger = await connect(`${server.baseUrl}/mcp`, (await server.account(0)).key)
    expect(errorOf(await stranger.callTool({ name: 'get_job', arguments: { job_id: bytes.id } })).code).toBe(
      'not_found',
    )
    expect(
      errorOf(await client.callTool({ name: 'get_job', arguments: { job_id: `j_${'0'.repeat(26)}` } })).code,
    ).toBe('not_found')
    const read = await client.callTool({
      name: 'read_job_file',
      arguments: { job_id: bytes.id, name: 'nothing.txt' },
    })
    expect(errorOf(read).code).toBe('not_found')
    await Promise.all([client.close(), stranger.close()])
  })

  it('invalid_request for malformed companion arguments', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    const error = errorOf(await client.callTool({ name: 'get_job', arguments: { job_id: 'nope' } }))
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('job_id') })
    await client.close()
  })

  it('url_not_allowed for a URL input that points inside the network', async () => {
    const client = await connect(`${server.baseUrl}/mcp/pdf`, account.key)
    const result = await client.callTool({
      name: 'extract_pdf',
      arguments: { url: 'https://127.0.0.1/secret.pdf' },
    })
    expect(errorOf(result).code).toBe('url_not_allowed')
    await client.close()
  })
})
