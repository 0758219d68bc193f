// The generation pipeline over MCP alone, against the local provider fakes: create_image → its
// image.png as job_file into create_3d_model_from_image → optimize_3d_model, each call returning
// the finished job with its outputs as resource links.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, structuredOf } from '../mcp/clients.ts'
import { type McpTestServer, startMcpTestServer } from '../mcp/fixture.ts'
import { corpusDir } from '../support/service.ts'
import { type FakeFal, type FakeOpenAi, startFakeFal, startFakeOpenAi } from './fakes.ts'

interface Job {
  id: string
  status: string
  credits_charged: number | null
  result: { files: { name: string; url: string }[] } | null
}

const saved = { ...process.env }
let server: McpTestServer
let openai: FakeOpenAi
let fal: FakeFal

beforeAll(async () => {
  openai = await startFakeOpenAi()
  fal = await startFakeFal({
    image: () => Buffer.alloc(0),
    model: () => readFileSync(join(corpusDir, 'glb', 'Box.glb')),
  })
  const caFile = join(mkdtempSync(join(tmpdir(), 'kiln-gen-mcp-ca-')), 'ca.pem')
  writeFileSync(caFile, fal.files.ca)
  Object.assign(process.env, {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: openai.baseUrl,
    FAL_KEY: 'test-fal-key',
    FAL_BASE_URL: fal.baseUrl,
    FAL_IMAGE_TO_3D_MODEL: 'fal-ai/trellis',
    FAL_POLL_INTERVAL_MS: '10',
    GENERATION_DOWNLOAD_ALLOW_ADDRESSES: '127.0.0.1',
    GENERATION_DOWNLOAD_ALLOWED_PORTS: String(fal.files.port),
    GENERATION_DOWNLOAD_CA_FILE: caFile,
  })
  server = await startMcpTestServer({ withRest: true, waitMs: 30_000, env: { MAX_ACTIVE_JOBS: '5' } })
})

afterAll(async () => {
  await server?.close()
  await openai?.close()
  await fal?.close()
  process.env = saved
})

describe('generation over MCP', () => {
  it('image → 3D model → optimized model, through job_file, each a finished job with resource links', {
    timeout: 120_000,
  }, async () => {
    const { key } = await server.account(200, { purchased: true })
    const client = await connect(`${server.baseUrl}/mcp`, key)
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args })
        expect(result.isError ?? false).toBe(false)
        const links = (result.content as { type: string; uri?: string; name?: string }[]).filter(
          (c) => c.type === 'resource_link',
        )
        return { job: structuredOf(result) as unknown as Job, links }
      }
      const image = await call('create_image', {
        prompt: 'a brass lantern',
        transparent_background: true,
        idempotency_key: 'mcp-image-1',
      })
      expect(image.job).toMatchObject({ status: 'succeeded', credits_charged: 8 })
      expect(image.links.map((l) => l.name)).toContain('image.png')

      const model = await call('create_3d_model_from_image', {
        job_file: { job_id: image.job.id, name: 'image.png' },
        idempotency_key: 'mcp-model-1',
      })
      expect(model.job).toMatchObject({ status: 'succeeded', credits_charged: 50 })
      expect(model.job.result!.files.map((f) => f.name)).toContain('model.glb')

      const optimized = await call('optimize_3d_model', {
        job_file: { job_id: model.job.id, name: 'model.glb' },
        idempotency_key: 'mcp-opt-1',
      })
      expect(optimized.job.status).toBe('succeeded')
      const glb = optimized.links.find((l) => l.name?.endsWith('.glb'))!
      const download = await fetch(glb.uri!)
      expect(download.status).toBe(200)
      expect(
        Buffer.from(await download.arrayBuffer())
          .subarray(0, 4)
          .toString(),
      ).toBe('glTF')

      const again = await call('create_image', {
        prompt: 'a brass lantern',
        transparent_background: true,
        idempotency_key: 'mcp-image-1',
      })
      expect(again.job.id).toBe(image.job.id)
    } finally {
      await client.close()
    }
  })
})
