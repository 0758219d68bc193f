// A file job over MCP alone: create_upload, PUT the file, start extract_pdf with the upload, follow it,
// then read its text output in chunks. The PUT goes through receiveUpload, the service behind the
// REST PUT route, after checking the URL carries the signature that route verifies.
import { createReadStream, existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { verifySignedPath } from '../../api/security/signed-url.ts'
import { receiveUpload } from '../../app/uploads.ts'
import { connect, structuredOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

const pdf = '/work/shared/corpus/pdf/pdfjs/vertical.pdf'
const pdfRunnerExists = existsSync(new URL('../../workers/tools/extract_pdf.ts', import.meta.url))
let server: McpTestServer
let key: string

beforeAll(async () => {
  server = await startMcpTestServer({ waitMs: 15_000 })
  ;({ key } = await server.account(20))
})
afterAll(() => server.close())

async function uploadPdf(client: Awaited<ReturnType<typeof connect>>) {
  const upload = structuredOf(
    await client.callTool({ name: 'create_upload', arguments: { filename: 'vertical.pdf' } }),
  )
  const url = new URL(upload.url as string)
  expect(url.origin).toBe(server.baseUrl)
  expect(url.pathname).toBe(`/v1/uploads/${upload.upload_id}/file`)
  const { signingSecret } = server.services.ctx.config
  expect(() =>
    verifySignedPath(signingSecret, 'PUT', url.pathname, url.searchParams, Date.now()),
  ).not.toThrow()
  expect(upload).toMatchObject({
    method: 'PUT',
    instructions: expect.stringContaining(upload.upload_id as string),
  })
  const { size } = await stat(pdf)
  await receiveUpload(server.services.ctx, upload.upload_id as string, createReadStream(pdf), size)
  return { uploadId: upload.upload_id as string, size }
}

it('starts a file job from an upload made over MCP', async () => {
  const client = await connect(`${server.baseUrl}/mcp/pdf`, key)
  const { uploadId, size } = await uploadPdf(client)
  const job = structuredOf(
    await client.callTool({
      name: 'extract_pdf',
      arguments: { upload_id: uploadId, idempotency_key: 'pdf-1' },
    }),
  )
  expect(job).toMatchObject({
    tool: 'extract_pdf',
    input: { name: 'vertical.pdf', bytes: size, source: 'upload' },
  })
  await client.close()
})

it.skipIf(!pdfRunnerExists)('finishes extract_pdf and reads its text output in chunks', async () => {
  const client = await connect(`${server.baseUrl}/mcp/pdf`, key)
  const { uploadId } = await uploadPdf(client)
  let result = await client.callTool({
    name: 'extract_pdf',
    arguments: { upload_id: uploadId, idempotency_key: 'pdf-2' },
  })
  let job = structuredOf(result)
  while (job.status === 'queued' || job.status === 'running') {
    result = await client.callTool({ name: 'get_job', arguments: { job_id: job.id, wait_seconds: 5 } })
    job = structuredOf(result)
  }
  expect(job.status).toBe('succeeded')
  const files = (job.result as { files: { name: string; url: string }[] }).files
  const text = files.find((file) => file.name.endsWith('.txt'))!
  expect(result.content).toContainEqual(
    expect.objectContaining({
      type: 'resource_link',
      uri: text.url,
      name: text.name,
      mimeType: 'text/plain',
    }),
  )

  let offset = 0
  let extracted = ''
  for (;;) {
    const chunk = structuredOf(
      await client.callTool({
        name: 'read_job_file',
        arguments: { job_id: job.id, name: text.name, offset, limit: 64 },
      }),
    )
    extracted += chunk.text
    offset = chunk.next_offset as number
    if (chunk.eof) break
  }
  expect(extracted.trim().length).toBeGreaterThan(0)
  const links = structuredOf(
    await client.callTool({ name: 'get_download_links', arguments: { job_id: job.id } }),
  )
  expect((links.files as { name: string }[]).map((file) => file.name)).toEqual(files.map((file) => file.name))
  await client.close()
})
