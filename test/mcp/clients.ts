// SDK clients over Streamable HTTP for the tests: the v2 client pinned to the 2026-07-28 revision or
// speaking the 2025 handshake, and the v1 SDK client (2025-11-25), each with a Bearer key.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export type Era = 'modern' | 'legacy'

export async function connect(url: string, key: string, era: Era = 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'kiln-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  )
  return client
}

export async function connectV1(url: string, key: string): Promise<V1Client> {
  const client = new V1Client({ name: 'kiln-test-v1', version: '1.0.0' })
  await client.connect(
    new V1Transport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  )
  return client
}

/** The structured content of a tool result, which every kiln tool returns. */
export function structuredOf(result: { structuredContent?: unknown }): Record<string, unknown> {
  if (typeof result.structuredContent !== 'object' || result.structuredContent === null)
    throw new Error('no structured content')
  return result.structuredContent as Record<string, unknown>
}

export function errorOf(result: { isError?: unknown; structuredContent?: unknown }) {
  if (result.isError !== true)
    throw new Error(`expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`)
  return (
    structuredOf(result) as {
      error: { code: string; message: string; hint: string | null; retry_after_seconds?: number }
    }
  ).error
}
