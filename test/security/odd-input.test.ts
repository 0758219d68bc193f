// Odd but legal input gets a 4xx or a success, never a 500 (issue 20, items 11, 13 and 14): output
// names outside Latin-1 download with an RFC 8187 filename*, a malformed Host on /mcp is not a
// server error, and processes starting together on one data folder share one signing secret.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { attachmentDisposition } from '../../api/content-disposition.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { tinyPdf } from '../support/tiny-pdf.ts'

describe('Content-Disposition of downloads', () => {
  it('keeps ASCII names as they are and encodes the others with filename*', () => {
    expect(attachmentDisposition('parts/model_part_01.glb')).toBe('attachment; filename="model_part_01.glb"')
    expect(attachmentDisposition('отчёт 報告.txt')).toBe(
      `attachment; filename="_____ __.txt"; filename*=UTF-8''${encodeURIComponent('отчёт 報告.txt')}`,
    )
    expect(attachmentDisposition('a"b\\c.txt')).toBe(
      `attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b%5Cc.txt`,
    )
  })
})

describe('over HTTP', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService(
      { rateLimit: { perSecond: 1000, burst: 1000 } },
      { plugins: [(app) => registerMcp(app, app.services)] },
    )
    ann = await service.account({ credits: 100, login: 'ann' })
  })
  afterAll(() => service?.close())

  it('downloads outputs whose names are Cyrillic and CJK', async () => {
    const created = await ann.request(
      `/v1/tools/extract_pdf/jobs?filename=${encodeURIComponent('отчёт 報告.pdf')}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: tinyPdf('Privet'),
      },
    )
    expect(created.status).toBe(202)
    const job = (await waitForJob(ann, ((await created.json()) as { id: string }).id)) as {
      status: string
      result: { files: { name: string; url: string }[] }
    }
    expect(job.status).toBe('succeeded')
    for (const file of job.result.files) {
      const download = await fetch(file.url)
      expect(download.status, file.name).toBe(200)
      expect(download.headers.get('content-disposition')).toContain(
        `filename*=UTF-8''${encodeURIComponent(file.name)}`,
      )
    }
  })

  it('answers /mcp with a malformed Host header without a server error', async () => {
    const port = new URL(service.baseUrl).port
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: [not a host\r\nAuthorization: Bearer ${ann.apiKey}\r\n` +
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
        `MCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
    // The answer streams (SSE) and the connection stays open: the status line is what matters.
    const [first] = (await once(socket, 'data')) as [Buffer]
    socket.destroy()
    const response = first.toString()
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1])
    expect(status).toBeGreaterThanOrEqual(200)
    expect(status).toBeLessThan(500)
  })
})

it('gives processes starting together on one folder one signing secret', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-secret-race-'))
  try {
    const script = `import { secretFile } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'app', 'security', 'secret-file.ts'))}
process.stdout.write(secretFile(${JSON.stringify(join(dir, 'signing.secret'))}, () => crypto.randomUUID() + crypto.randomUUID()))`
    const runs = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let out = ''
      child.stdout.on('data', (chunk) => (out += chunk))
      return once(child, 'exit').then(() => out)
    })
    const secrets = await Promise.all(runs)
    expect(new Set(secrets).size).toBe(1)
    expect(secrets[0]!.length).toBe(72)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
