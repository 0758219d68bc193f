// MCP is behind the same per-credential rate limit as REST: one bucket per key, spent by either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

describe('MCP rate limit', () => {
  let server: McpTestServer
  let key: string

  beforeAll(async () => {
    server = await startMcpTestServer({
      withRest: true,
      env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '4' },
    })
    ;({ key } = await server.account(10))
  })
  afterAll(() => server?.close())

  const listTools = () =>
    fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })

  it('REST requests and MCP requests drain one bucket; past it MCP answers 429 rate_limited with Retry-After', async () => {
    for (let i = 0; i < 3; i++) {
      const rest = await fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${key}` } })
      expect(rest.status).toBe(200)
      await rest.arrayBuffer()
    }
    const statuses: number[] = []
    let limited: Response | undefined
    for (let i = 0; i < 4; i++) {
      const response = await listTools()
      statuses.push(response.status)
      if (response.status === 429) limited ??= response
      else await response.arrayBuffer()
    }
    // Burst 4: three went to REST, so at most one MCP call (plus what a second refills) gets through.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2)
    expect(statuses[0]).not.toBe(429)
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await limited?.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } })
  })
})
