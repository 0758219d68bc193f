// The MCP endpoints as an OAuth protected resource and a browser-callable endpoint: RFC 9728
// metadata for /mcp, each toolset and the REST API; a 401 that points at it; the Origin rule of the
// MCP transport (a foreign browser origin gets 403, an allowed one gets CORS, none is fine).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

let server: McpTestServer
let key: string

beforeAll(async () => {
  server = await startMcpTestServer({
    withRest: true,
    env: { MCP_ALLOWED_ORIGINS: 'https://agent.example.com' },
  })
  ;({ key } = await server.account(10))
})
afterAll(() => server?.close())

const listTools = (headers: Record<string, string>) =>
  fetch(`${server.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })

describe('protected resource metadata', () => {
  it.each([
    ['/.well-known/oauth-protected-resource', '', 'kiln REST API'],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp', 'kiln MCP (every tool)'],
    ['/.well-known/oauth-protected-resource/mcp/pdf', '/mcp/pdf', 'kiln MCP (pdf tools)'],
  ])('%s names its resource', async (path, resource, name) => {
    const response = await fetch(`${server.baseUrl}${path}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      resource: `${server.baseUrl}${resource}`,
      resource_name: name,
      bearer_methods_supported: ['header'],
      authorization_servers: [server.baseUrl],
      scopes_supported: ['jobs:run', 'read'],
    })
  })

  it('points a 401 on /v1 and on a toolset endpoint at the right metadata', async () => {
    const rest = await fetch(`${server.baseUrl}/v1/me`)
    expect(rest.status).toBe(401)
    expect(rest.headers.get('www-authenticate')).toBe(
      `Bearer realm="kiln", resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource"`,
    )
    const refused = await fetch(`${server.baseUrl}/mcp/random`, {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer realm="kiln", resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp/random", error="invalid_token"`,
    )
  })
})

describe('Origin on /mcp', () => {
  it('refuses a browser origin that is not allowed, before authentication', async () => {
    const response = await listTools({ origin: 'https://evil.example', authorization: `Bearer ${key}` })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({
      error: { code: 'forbidden', message: expect.stringContaining('evil.example') },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('serves an allowed origin with CORS headers that expose the challenge', async () => {
    const response = await listTools({ origin: 'https://agent.example.com', authorization: `Bearer ${key}` })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://agent.example.com')
    expect(response.headers.get('access-control-expose-headers')).toContain('www-authenticate')
    const preflight = await fetch(`${server.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example.com', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization')
    const foreignPreflight = await fetch(`${server.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(foreignPreflight.status).toBe(403)
  })

  it("serves this server's own origin and requests with no Origin", async () => {
    expect((await listTools({ origin: server.baseUrl, authorization: `Bearer ${key}` })).status).toBe(200)
    expect((await listTools({ authorization: `Bearer ${key}` })).status).toBe(200)
  })
})
