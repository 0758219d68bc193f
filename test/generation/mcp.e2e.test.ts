// The generation pipeline over MCP alone, against the local provider fakes: create_image → its
// image.png as job_file into create_3d_model_from_image → optimize_3d_model, each call returning
// the finished job with its outputs as resource links.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, structuredOf } from '../mcp/clients.ts'
import { type McpTestServer, startMcpTestServer } from '../mcp/fixture.ts'
import { corpusDir } from '../support/service.ts'
import { type GenerationFakes, startGenerationFakes } from './fakes.ts'

interface Job {
  id: string
  status: string
  credits_charged: number | null
  result: { files: { name: string; url: string }[] } | null
}

let server: McpTestServer
let fakes: GenerationFakes

beforeAll(async () => {
  fakes = await startGenerationFakes(readFileSync(join(corpusDir, 'glb', 'Box.glb')))
  server = await startMcpTestServer({ withRest: true, waitMs: 30_000, env: { MAX_ACTIVE_JOBS: '5' } })
})

afterAll(async () => {
  await server?.close()
  await fakes?.close()
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
