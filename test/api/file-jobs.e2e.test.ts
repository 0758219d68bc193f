// File tools through the whole lifecycle over REST: upload + PUT, raw body and job_file inputs,
// measured pricing, chunked text reads that never split a character, signed downloads.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { audit } from '../../projections/audit.ts'
import { knownTextPdf, scan } from '../pdf/scanned.ts'
import { corpusMissing, peerReady } from '../support/peers.ts'
import {
  corpusDir,
  startTestService,
  type TestAccount,
  type TestService,
  waitForJob,
} from '../support/service.ts'
import { objectAfterPages, overflowingPage, pdfOfPages, textPage } from '../support/tiny-pdf.ts'

const hasCorpus = peerReady('file-jobs', corpusMissing('pdf'))

interface Job {
  id: string
  status: string
  credits_charged: number | null
  error: { code: string; message: string; hint: string | null } | null
  result: {
    files: { name: string; bytes: number; sha256: string; url: string }[]
    pages?: number
    [k: string]: unknown
  } | null
  input: { name: string; bytes: number; source: string }
}

describe.skipIf(!hasCorpus)('extract_pdf through the lifecycle', () => {
  let service: TestService
  let ann: TestAccount

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
    ann = await service.account({ credits: 100, login: 'ann' })
  })
  afterAll(() => service.close())

  async function uploadAndRun(file: string, options: Record<string, unknown> = {}): Promise<Job> {
    const created = (await (
      await ann.request('/v1/uploads', { method: 'POST', json: { filename: file.split('/').at(-1) } })
    ).json()) as { upload_id: string; url: string }
    const put = await fetch(created.url, { method: 'PUT', body: readFileSync(join(corpusDir, file)) })
    expect(put.status).toBe(200)
    const job = (await (
      await ann.request('/v1/tools/extract_pdf/jobs', {
        method: 'POST',
        json: { upload_id: created.upload_id, options },
      })
    ).json()) as Job
    return (await waitForJob(ann, job.id)) as unknown as Job
  }

  /** Starts extract_pdf on `body` sent raw (`query`: the file name and options) and waits for its end. */
  async function runRaw(query: string, body: Buffer): Promise<Job> {
    const response = await ann.request(`/v1/tools/extract_pdf/jobs?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body,
    })
    expect(response.status).toBe(202)
    return (await waitForJob(ann, ((await response.json()) as Job).id)) as unknown as Job
  }

  it('extracts a multi-page PDF, prices it by pages, and serves its text in chunks that rebuild the file', async () => {
    const job = await uploadAndRun('pdf/pypdf/habibi.pdf')
    expect(job.status).toBe('succeeded')
    expect(job.input).toMatchObject({ name: 'habibi.pdf', source: 'upload' })
    expect(job.credits_charged).toBe(Math.ceil((job.result!.pages as number) / 10))
    const text = job.result!.files.find((f) => f.name.endsWith('.txt'))!
    const download = await fetch(text.url)
    expect(download.status).toBe(200)
    const whole = Buffer.from(await download.arrayBuffer())
    expect(whole.length).toBe(text.bytes)
    // Multi-byte characters make 16-byte chunks cut near character boundaries.
    expect(whole.some((byte) => byte >= 0x80)).toBe(true)

    const parts: Buffer[] = []
    let offset = 0
    for (;;) {
      const chunk = (await (
        await ann.request(
          `/v1/jobs/${job.id}/files/${encodeURIComponent(text.name)}?offset=${offset}&limit=16`,
        )
      ).json()) as { text: string; next_offset: number; eof: boolean; total_bytes: number; offset: number }
      expect(chunk.total_bytes).toBe(text.bytes)
      expect(chunk.offset).toBe(offset)
      parts.push(Buffer.from(chunk.text, 'utf8'))
      expect(Buffer.byteLength(chunk.text)).toBe(chunk.next_offset - offset)
      offset = chunk.next_offset
      if (chunk.eof) break
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true)
  })

  it('not_text for a non-text output name, 404 for a missing file, 400 for a limit or offset out of range', async () => {
    const { jobs } = (await (await ann.request('/v1/jobs?tool=extract_pdf&status=succeeded')).json()) as {
      jobs: Job[]
    }
    const id = jobs[0]!.id
    const json = jobs[0]!.result!.files.find((f) => f.name.endsWith('.json'))!
    expect((await ann.request(`/v1/jobs/${id}/files/${encodeURIComponent(json.name)}?limit=16`)).status).toBe(
      200,
    )
    expect((await ann.request(`/v1/jobs/${id}/files/nothing.txt`)).status).toBe(404)
    expect((await ann.request(`/v1/jobs/${id}/files/x.txt?limit=15`)).status).toBe(400)
    // An offset in decimal digits only (an empty one read as 0 before).
    for (const offset of ['', '1e2', '0x10'])
      expect(
        (await ann.request(`/v1/jobs/${id}/files/${encodeURIComponent(json.name)}?offset=${offset}`)).status,
      ).toBe(400)
  })

  it('a raw body works the same; a damaged PDF fails with invalid_pdf and costs nothing', async () => {
    const balance = async () =>
      ((await (await ann.request('/v1/billing')).json()) as { balance: number }).balance
    const raw = await ann.request('/v1/tools/extract_pdf/jobs?filename=doc.pdf&first_page=1&last_page=1', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: readFileSync(join(corpusDir, 'pdf/pypdf/minimal-document.pdf')),
    })
    expect(raw.status).toBe(202)
    const done = (await waitForJob(ann, ((await raw.json()) as Job).id)) as unknown as Job
    expect(done).toMatchObject({ status: 'succeeded', input: { name: 'doc.pdf', source: 'body' } })

    const before = await balance()
    const broken = await ann.request('/v1/tools/extract_pdf/jobs?filename=broken.pdf', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from('%PDF-1.7\nthis is not a pdf at all'),
    })
    const failed = (await waitForJob(ann, ((await broken.json()) as Job).id)) as unknown as Job
    expect(failed.status).toBe('failed')
    expect(failed.error!.code).toBe('invalid_pdf')
    expect(failed.error!.hint).toBeTruthy()
    expect(failed.credits_charged === null || failed.credits_charged === 0).toBe(true)
    expect(await balance()).toBe(before)
  })

  it('OCR pages are measured before the charge and priced on top; a language not installed fails and costs nothing', async () => {
    const balance = async () =>
      ((await (await ann.request('/v1/billing')).json()) as { balance: number }).balance
    const scanned = scan(knownTextPdf(2).pdf).pdf
    const before = await balance()
    const job = await runRaw('filename=scan.pdf', scanned)
    expect(job.status).toBe('succeeded')
    expect(job.result!.ocr_pages).toBe(2)
    // 1 credit for the 2 pages, 1 for the 2 OCR pages.
    expect(job.credits_charged).toBe(2)
    expect(await balance()).toBe(before - 2)
    expect(job.result!.files.map((file) => file.name).sort()).toEqual(['scan.pages.json', 'scan.txt'])

    // The language check needs the worker's engine, so it happens at the measure step, before the charge.
    const refused = await ann.request('/v1/tools/extract_pdf/jobs?filename=scan.pdf&languages=eng,xyz', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: scanned,
    })
    expect(refused.status).toBe(202)
    const failed = (await waitForJob(ann, ((await refused.json()) as Job).id)) as unknown as Job
    expect(failed.status).toBe('failed')
    expect(failed.error!.code).toBe('invalid_options')
    expect(failed.error!.message).toContain('xyz')
    expect(failed.credits_charged === null || failed.credits_charged === 0).toBe(true)
    expect(await balance()).toBe(before - 2)
  })

  it('OCR charged for a page the renderer could not draw goes back, and the ledger still proves itself', async () => {
    const billing = async () =>
      (await (await ann.request('/v1/billing')).json()) as {
        balance: number
        entries: { kind: string; amount: number; job_id: string | null }[]
      }
    const before = (await billing()).balance
    // Page 1 overflows the renderer's stack; pages 2 and 3 show text. All three are read by OCR (ocr=force).
    const overflowing = overflowingPage(objectAfterPages(3))
    const pdf = pdfOfPages(
      [overflowing.page, textPage('Glazes melt at dawn'), textPage('The kiln cools slowly')],
      overflowing.objects,
    )
    const job = await runRaw('filename=kiln.pdf&ocr=force', pdf)
    expect(job.status).toBe('succeeded')
    expect(job.result!.ocr_pages).toBe(2)
    expect(job.result!.notes).toContainEqual(expect.stringMatching(/^Pages 1 could not be rendered for OCR/))
    // Charged 1 for the 3 pages and 2 for 3 OCR pages; 2 OCR pages cost 1, so 1 went back.
    expect(job.credits_charged).toBe(2)
    const after = await billing()
    expect(after.balance).toBe(before - 2)
    expect(after.entries.filter((entry) => entry.job_id === job.id)).toMatchObject([
      { kind: 'refund', amount: 1 },
      { kind: 'charge', amount: 3 },
    ])
    const report = await audit(service.services.ctx.store)
    expect(report.violations).toEqual([])
  })

  it('a signed download URL refuses a tampered path', async () => {
    const { jobs } = (await (
      await ann.request('/v1/jobs?tool=extract_pdf&status=succeeded&limit=1')
    ).json()) as { jobs: Job[] }
    const url = new URL(jobs[0]!.result!.files[0]!.url)
    url.pathname = url.pathname.replace(/[^/]+$/, 'other.txt')
    const response = await fetch(url)
    expect(response.status).toBe(403)
  })
})
