// The four mesh tools through the whole lifecycle over REST: raw bodies and uploads in, measured
// face pricing, outputs chained with job_file, the parts zip downloaded from its signed URL, every
// GLB valid under the Khronos validator, a damaged model failed and refunded.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import validator from 'gltf-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { corpusMissing, peerReady } from '../support/peers.ts'
import {
  corpusDir,
  startTestService,
  type TestAccount,
  type TestService,
  waitForJob,
} from '../support/service.ts'

const hasCorpus = peerReady('mesh-jobs', corpusMissing('glb'))

interface Job {
  id: string
  status: string
  credits_charged: number | null
  error: { code: string; hint: string | null } | null
  result:
    | ({ files: { name: string; bytes: number; sha256: string; url: string }[] } & Record<string, unknown>)
    | null
}

describe.skipIf(!hasCorpus)('mesh tools through the lifecycle', () => {
  let service: TestService
  let jo: TestAccount

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
    jo = await service.account({ credits: 100, login: 'jo' })
  })
  afterAll(() => service.close())

  const raw = async (tool: string, file: string, query = '', headers: Record<string, string> = {}) => {
    const response = await jo.request(`/v1/tools/${tool}/jobs?filename=${file.split('/').at(-1)}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: readFileSync(join(corpusDir, file)),
    })
    expect(response.status).toBe(202)
    return (await waitForJob(jo, ((await response.json()) as Job).id, 60_000)) as unknown as Job
  }
  const download = async (url: string) => {
    const response = await fetch(url)
    expect(response.status).toBe(200)
    return Buffer.from(await response.arrayBuffer())
  }
  const expectValidGlb = async (bytes: Buffer) => {
    const report = await validator.validateBytes(new Uint8Array(bytes))
    expect(report.issues.numErrors).toBe(0)
  }

  it('inspect: free, with inspection.json, summary.txt and a PNG preview', async () => {
    const job = await raw('inspect_3d_model', 'glb/ShapeCollection.glb')
    expect(job.status).toBe('succeeded')
    expect(job.credits_charged).toBe(0)
    expect(job.result).toMatchObject({
      schema_version: expect.anything(),
      face_count: expect.any(Number),
      object_count: expect.any(Number),
    })
    const names = job.result!.files.map((f) => f.name)
    expect(names).toEqual(expect.arrayContaining(['inspection.json', 'summary.txt', 'preview.png']))
    const png = await download(job.result!.files.find((f) => f.name === 'preview.png')!.url)
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    const summary = (await (await jo.request(`/v1/jobs/${job.id}/files/summary.txt`)).json()) as {
      text: string
    }
    expect(summary.text.length).toBeGreaterThan(0)
  })

  it('split: parts under a folder plus the zip, priced by faces', async () => {
    const job = await raw('split_3d_model', 'glb/ShapeCollection.glb', '&segmented=false')
    expect(job.status).toBe('succeeded')
    expect(job.result).toMatchObject({
      part_count: expect.any(Number),
      input_faces: expect.any(Number),
      exported_faces: expect.any(Number),
    })
    expect(job.result!.part_count as number).toBeGreaterThan(1)
    expect(job.credits_charged).toBe(2)
    const parts = job.result!.files.filter((f) => f.name.startsWith('parts/') && f.name.endsWith('.glb'))
    expect(parts).toHaveLength(job.result!.part_count as number)
    await expectValidGlb(await download(parts[0]!.url))
    const zip = await download(job.result!.files.find((f) => f.name.endsWith('_parts.zip'))!.url)
    expect(zip.subarray(0, 2).toString()).toBe('PK')
  })

  it('simplify an upload, then optimize its output through job_file', async () => {
    const created = (await (
      await jo.request('/v1/uploads', { method: 'POST', json: { filename: 'bunny.stl' } })
    ).json()) as { upload_id: string; url: string }
    expect(
      (
        await fetch(created.url, {
          method: 'PUT',
          body: readFileSync(join(corpusDir, 'stl/bunny_binary.stl')),
        })
      ).status,
    ).toBe(200)
    const simplifying = (await (
      await jo.request('/v1/tools/simplify_3d_model/jobs', {
        method: 'POST',
        json: { upload_id: created.upload_id, options: { target_ratio: 0.25, format: 'glb' } },
      })
    ).json()) as Job
    const simplified = (await waitForJob(jo, simplifying.id, 60_000)) as unknown as Job
    expect(simplified.status).toBe('succeeded')
    const glb = simplified.result!.files.find((f) => f.name.endsWith('.glb'))!
    await expectValidGlb(await download(glb.url))

    const optimizing = await jo.request('/v1/tools/optimize_3d_model/jobs', {
      method: 'POST',
      json: { job_file: { job_id: simplified.id, name: glb.name }, idempotency_key: 'optimize-bunny' },
    })
    expect(optimizing.status).toBe(202)
    const optimized = (await waitForJob(jo, ((await optimizing.json()) as Job).id, 60_000)) as unknown as Job
    expect(optimized.status).toBe('succeeded')
    const out = optimized.result!.files.find((f) => f.name.endsWith('.glb'))!
    const bytes = await download(out.url)
    await expectValidGlb(bytes)
    expect(JSON.stringify(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString())).toContain(
      'EXT_meshopt_compression',
    )
  })

  it('a damaged model fails with invalid_mesh, a hint, and no charge', async () => {
    const before = ((await (await jo.request('/v1/billing')).json()) as { balance: number }).balance
    const job = await raw('split_3d_model', 'malformed/glb/truncated_chunk_data.glb')
    expect(job.status).toBe('failed')
    expect(job.error!.code).toBe('invalid_mesh')
    expect(job.error!.hint).toBeTruthy()
    expect(((await (await jo.request('/v1/billing')).json()) as { balance: number }).balance).toBe(before)
  })
})
