// The README's two commands, as a newcomer runs them: `npm start` on an empty data folder prints the
// owner's key once (a JSON log line), then serves a mesh job and a PDF job to the end; and the tree
// `npm install` built stays clean in git (the build rewrites no tracked file).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../projections/support/mongo-server.ts'
import { tinyPdf } from '../support/tiny-pdf.ts'

const root = join(import.meta.dirname, '..', '..')

const cubeObj = [
  'v 0 0 0',
  'v 1 0 0',
  'v 1 1 0',
  'v 0 1 0',
  'v 0 0 1',
  'v 1 0 1',
  'v 1 1 1',
  'v 0 1 1',
  'f 1 2 3 4',
  'f 5 8 7 6',
  'f 1 5 6 2',
  'f 2 6 7 3',
  'f 3 7 8 4',
  'f 4 8 5 1',
].join('\n')

describe('npm start on an empty data folder', () => {
  let child: ChildProcess
  let dataDir: string
  let baseUrl: string
  let apiKey: string
  let out = ''

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kiln-npm-start-'))
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    child.stdout!.on('data', (chunk) => (out += chunk))
    child.stderr!.on('data', (chunk) => (out += chunk))
    const deadline = Date.now() + 60_000
    for (;;) {
      const line = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { apiKey?: string })
        .find((l) => l.apiKey)
      if (line?.apiKey) {
        apiKey = line.apiKey
        break
      }
      if (Date.now() > deadline) throw new Error(`npm start printed no owner key:\n${out}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, 90_000)

  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = once(child, 'exit')
      process.kill(-child.pid, 'SIGTERM')
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function run(tool: string, filename: string, body: Buffer | string, key: string) {
    const created = await fetch(`${baseUrl}/v1/tools/${tool}/jobs?filename=${filename}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/octet-stream',
        'idempotency-key': key,
      },
      body,
    })
    expect(created.status).toBe(202)
    const { id } = (await created.json()) as { id: string }
    for (let i = 0; i < 300; i++) {
      const job = (await (
        await fetch(`${baseUrl}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })
      ).json()) as { status: string; error: unknown; result: Record<string, unknown> | null }
      if (job.status !== 'queued' && job.status !== 'running') return job
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`${tool} job ${id} did not finish`)
  }

  it('serves a mesh job to the end', async () => {
    const job = await run('inspect_3d_model', 'cube.obj', cubeObj, 'smoke-mesh')
    expect(job.error).toBeNull()
    expect(job).toMatchObject({ status: 'succeeded', result: { face_count: 12 } })
  })

  it('serves a PDF job to the end', async () => {
    const job = await run('extract_pdf', 'hello.pdf', tinyPdf('Hello kiln'), 'smoke-pdf')
    expect(job.error).toBeNull()
    expect(job).toMatchObject({ status: 'succeeded', result: { pages: 1 } })
  })

  it('logs JSON lines only', () => {
    for (const line of out.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow()
  })

  it('left the tree clean: building rewrote no tracked file', () => {
    // What the build writes lives under native/: nothing tracked there may differ after it.
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'native'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(status.stdout).toBe('')
  })
})
