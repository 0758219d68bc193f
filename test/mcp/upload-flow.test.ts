// A file job over MCP alone, inside the full REST app: create_upload, PUT the file to the signed URL,
// start extract_pdf with the upload, follow it, read its text output in chunks, and download the same
// file from its resource link.
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { connect, structuredOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

const pdfPath = '/work/shared/corpus/pdf/pdfjs/vertical.pdf'
let server: McpTestServer
let key: string

beforeAll(async () => {
  server = await startMcpTestServer({ withRest: true, waitMs: 10_000 })
  ;({ key } = await server.account(20))
})
afterAll(() => server.close())

it('uploads, extracts a PDF, reads the text in chunks and downloads it from the resource link', async () => {
  const client = await connect(`${server.baseUrl}/mcp/pdf`, key)
  const upload = structuredOf(
    await client.callTool({ name: 'create_upload', arguments: { filename: 'vertical.pdf' } }),
  )
  expect(upload).toMatchObject({
    method: 'PUT',
    instructions: expect.stringContaining(upload.upload_id as string),
  })
  const pdf = await readFile(pdfPath)
  const put = await fetch(upload.url as string, {
    method: 'PUT',
    body: pdf,
    headers: { 'content-type': 'application/pdf' },
  })
  expect(put.ok).toBe(true)

  let result = await client.callTool({
    name: 'extract_pdf',
    arguments: { upload_id: upload.upload_id, idempotency_key: 'pdf-1' },
  })
  let job = structuredOf(result)
  expect(job).toMatchObject({
    tool: 'extract_pdf',
    input: { name: 'vertical.pdf', bytes: pdf.length, source: 'upload' },
  })
  while (job.status === 'queued' || job.status === 'running') {
    result = await client.callTool({ name: 'get_job', arguments: { job_id: job.id, wait_seconds: 5 } })
    job = structuredOf(result)
  }
  expect(job.status).toBe('succeeded')
  const files = (job.result as { files: { name: string; url: string; bytes: number }[] }).files
  const text = files.find((file) => file.name.endsWith('.txt'))!
  const link = {
    type: 'resource_link',
    uri: text.url,
    name: text.name,
    mimeType: 'text/plain',
    size: text.bytes,
  }
  expect(result.content).toContainEqual(link)

  let offset = 0
  let extracted = ''
  for (let eof = false; !eof; ) {
    const chunk = structuredOf(
      await client.callTool({
        name: 'read_job_file',
        arguments: { job_id: job.id, name: text.name, offset, limit: 64 },
      }),
    )
    extracted += chunk.text
    offset = chunk.next_offset as number
    eof = chunk.eof as boolean
  }
  expect(extracted.trim().length).toBeGreaterThan(0)
  const download = await fetch(text.url)
  expect(download.status).toBe(200)
  expect(await download.text()).toBe(extracted)

  const again = structuredOf(
    await client.callTool({
      name: 'extract_pdf',
      arguments: { upload_id: upload.upload_id, idempotency_key: 'pdf-1' },
    }),
  )
  expect(again.id).toBe(job.id)
  await client.close()
})
