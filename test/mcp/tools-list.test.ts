// The tools each endpoint offers, as an agent sees them, and who may see them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toolCatalog, toolsets } from '../../domain/tools/catalog.ts'
import { connect } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'
import { configureProviders } from './provider-env.ts'

const companions = ['get_job', 'list_jobs', 'cancel_job', 'read_job_file', 'get_download_links', 'quote_job']
let server: McpTestServer
let key: string
let restoreEnv: () => void

beforeAll(async () => {
  restoreEnv = configureProviders()
  server = await startMcpTestServer()
  ;({ key } = await server.account(10))
})
afterAll(async () => {
  restoreEnv()
  await server.close()
})

async function listTools(path: string) {
  const client = await connect(`${server.baseUrl}${path}`, key)
  try {
    return (await client.listTools()).tools
  } finally {
    await client.close()
  }
}

describe('tools/list', () => {
  it('offers every catalog tool and the companion tools on /mcp, described from the catalog', async () => {
    const tools = await listTools('/mcp')
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...toolCatalog.keys(), ...companions, 'create_upload'].sort(),
    )
    for (const definition of toolCatalog.values()) {
      const tool = tools.find((t) => t.name === definition.id)!
      expect(tool.description).toBe(definition.description)
      expect(tool.title).toBe(definition.title)
      expect(tool.outputSchema?.anyOf).toEqual([
        expect.objectContaining({ required: expect.arrayContaining(['id', 'status', 'result']) }),
        expect.objectContaining({ required: ['error'] }),
      ])
    }
  })

  it.each(toolsets)('offers only the %s family (plus companions) on its own endpoint', async (toolset) => {
    const family = [...toolCatalog.values()].filter((t) => t.toolset === toolset)
    const uploads = family.some((t) => t.input.kind === 'file') ? ['create_upload'] : []
    const tools = await listTools(`/mcp/${toolset}`)
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...family.map((t) => t.id), ...companions, ...uploads].sort(),
    )
  })

  it('gives each tool its options plus the input fields its input kind allows', async () => {
    const tools = await listTools('/mcp')
    const schemaOf = (name: string) => tools.find((t) => t.name === name)!.inputSchema
    const numbers = schemaOf('get_random_numbers')
    expect(Object.keys(numbers.properties ?? {}).sort()).toEqual([
      'count',
      'idempotency_key',
      'max',
      'min',
      'type',
      'unique',
    ])
    expect(numbers.required).toEqual(['idempotency_key'])
    expect(Object.keys(schemaOf('extract_pdf').properties ?? {})).toEqual(
      expect.arrayContaining(['first_page', 'mode', 'upload_id', 'url', 'filename', 'idempotency_key']),
    )
    expect(schemaOf('extract_pdf').properties).not.toHaveProperty('job_file')
    expect(schemaOf('optimize_3d_model').properties).toHaveProperty('job_file')
    expect(schemaOf('get_random_bytes').required).toBeUndefined()
  })

  it('annotates honestly: paid calls are not read-only, URL and generation tools are open-world', async () => {
    const tools = await listTools('/mcp')
    const annotationsOf = (name: string) => tools.find((t) => t.name === name)!.annotations
    expect(annotationsOf('get_random_bytes')).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
      destructiveHint: false,
    })
    expect(annotationsOf('extract_pdf')).toMatchObject({
      readOnlyHint: false,
      openWorldHint: true,
      idempotentHint: false,
    })
    expect(annotationsOf('create_image')).toMatchObject({
      readOnlyHint: false,
      openWorldHint: true,
      idempotentHint: true,
    })
    expect(annotationsOf('get_job')).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    expect(annotationsOf('cancel_job')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    })
  })
})

describe('tools/list without generation providers', () => {
  it('leaves out the generation tools, as GET /v1/tools does', async () => {
    restoreEnv()
    try {
      const names = (await listTools('/mcp')).map((t) => t.name)
      expect(names).not.toContain('create_image')
      expect(names).not.toContain('create_3d_model')
      expect(names).not.toContain('create_3d_model_from_image')
      expect(names).toContain('split_3d_model')
    } finally {
      restoreEnv = configureProviders()
    }
  })
})

describe('endpoints', () => {
  it('answers an unknown toolset with 404 not_found', async () => {
    const response = await fetch(`${server.baseUrl}/mcp/video`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('video') },
    })
  })

  it.each([
    ['no credentials', undefined, ''],
    ['a wrong key', 'Bearer kiln_sk_not-a-real-key-at-all-000000000000000', ', error="invalid_token"'],
  ])('refuses %s with 401 unauthorized and a Bearer challenge', async (_case, authorization, error) => {
    const challenge = `Bearer realm="kiln", resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"${error}`
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(challenge)
    expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } })
  })

  it('lets an SDK client with a wrong key in no further than the handshake', async () => {
    await expect(connect(`${server.baseUrl}/mcp`, 'kiln_sk_wrong', 'legacy')).rejects.toThrow()
  })
})
