// Client file names never become paths on disk (issue 20, item 12): a raw-body name of 250
// characters, or an upload named with 300 UTF-8 bytes, runs like any other job; the outputs named
// after it are capped; the job still shows the name the client sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { tinyPdf } from '../support/tiny-pdf.ts'

const cube = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 0 0 1', 'f 1 2 3', 'f 1 2 4', 'f 1 3 4', 'f 2 3 4'].join(
  '\n',
)

interface Job {
  id: string
  status: string
  error: { code: string; message: string } | null
  input: { name: string }
  result: { files: { name: string; url: string }[] } | null
}

describe('long and non-ASCII file names', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
    ann = await service.account({ credits: 100, login: 'ann' })
  })
  afterAll(() => service?.close())

  async function rawBody(tool: string, filename: string, body: Buffer | string) {
    const created = await ann.request(`/v1/tools/${tool}/jobs?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    })
    expect(created.status).toBe(202)
    return (await waitForJob(ann, ((await created.json()) as { id: string }).id)) as unknown as Job
  }

  it('runs a PDF named with 250 characters, with capped output names that download', async () => {
    const name = `${'a'.repeat(246)}.pdf`
    const job = await rawBody('extract_pdf', name, tinyPdf('long'))
    expect(job.error).toBeNull()
    expect(job.status).toBe('succeeded')
    expect(job.input.name).toBe(name)
    for (const file of job.result!.files) {
      expect(file.name.length).toBeLessThanOrEqual(120)
      expect((await fetch(file.url)).status).toBe(200)
    }
  })

  it('runs a mesh named with 250 characters', async () => {
    const job = await rawBody('inspect_3d_model', `${'m'.repeat(246)}.obj`, cube)
    expect(job.error).toBeNull()
    expect(job.status).toBe('succeeded')
  })

  it('runs an upload named with 300 UTF-8 bytes', async () => {
    const filename = `${'é'.repeat(148)}.obj`
    expect(Buffer.byteLength(filename)).toBeGreaterThan(295)
    const upload = await ann.request('/v1/uploads', { method: 'POST', json: { filename } })
    expect(upload.status).toBe(201)
    const { upload_id, url } = (await upload.json()) as { upload_id: string; url: string }
    expect((await fetch(url, { method: 'PUT', body: cube })).status).toBe(200)
    const created = await ann.request('/v1/tools/inspect_3d_model/jobs', {
      method: 'POST',
      json: { upload_id },
    })
    expect(created.status).toBe(202)
    const job = (await waitForJob(ann, ((await created.json()) as { id: string }).id)) as unknown as Job
    expect(job.error).toBeNull()
    expect(job.status).toBe('succeeded')
    expect(job.input.name).toBe(filename)
  })
})
