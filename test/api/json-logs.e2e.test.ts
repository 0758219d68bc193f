// `npm start` logs JSON lines only: start-up, the first-start notice, every request line (carrying
// the Request-Id the response carries) and the drain on SIGTERM all parse as JSON.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { freePort } from '../projections/support/mongo-server.ts'

async function until(check: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

it('writes JSON lines only, with the request id on request lines', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-logs-'))
  const port = await freePort()
  let out = ''
  let child: ChildProcess | undefined
  try {
    child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'api', 'main.ts')], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout!.on('data', (chunk) => (out += chunk))
    child.stderr!.on('data', (chunk) => (out += chunk))
    await until(() => out.includes('kiln listening'))
    const response = await fetch(`http://127.0.0.1:${port}/v1/me`, {
      headers: { 'request-id': 'trace-json-1' },
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('request-id')).toBe('trace-json-1')
    const signed = await fetch(
      `http://127.0.0.1:${port}/v1/downloads/j_${'0'.repeat(26)}/a.txt?exp=1&sig=secret-signature-xyz`,
    )
    expect(signed.status).toBe(403)
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
    const lines = out.trim().split('\n')
    const parsed = lines.map((line) => JSON.parse(line) as { msg?: string; reqId?: string })
    expect(parsed.some((line) => line.reqId === 'trace-json-1')).toBe(true)
    expect(parsed.some((line) => /first start/.test(line.msg ?? ''))).toBe(true)
    expect(parsed.some((line) => /draining/.test(line.msg ?? ''))).toBe(true)
    // The signed URL was logged, its signature was not.
    expect(out).toContain('sig=REDACTED')
    expect(out).not.toContain('secret-signature-xyz')
  } finally {
    child?.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
