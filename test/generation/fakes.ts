// Local stand-ins for the providers, speaking their documented wire formats on loopback: OpenAI's
// Images API (plain HTTP, the adapter's base URL is configurable) and fal's queue API, whose result
// files are served over HTTPS from a second server, as fal's CDN would, so downloads go through the
// SSRF guard. Each test scripts the next answers and reads what the fakes received.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture.ts'

export interface Received {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

/** A scripted answer: status, JSON body, headers. */
export interface Answer {
  status: number
  body: unknown
  headers?: Record<string, string>
}

/** A real PNG of the given size (grey pixels), small enough to build per test. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8)
  const rows = Buffer.alloc((width + 1) * height, 0x80)
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

async function listen(
  handler: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => handler(request, body, response))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const send = (response: ServerResponse, answer: Answer) => {
  response
    .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
    .end(JSON.stringify(answer.body))
}

export interface FakeOpenAi {
  baseUrl: string
  received: Received[]
  /** Answers for the next requests, in order; afterwards every request gets an image. */
  next: Answer[]
  close(): Promise<void>
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const received: Received[] = []
  const next: Answer[] = []
  const { server, url } = await listen((request, body, response) => {
    received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
    if (request.method !== 'POST' || request.url !== '/v1/images/generations')
      return send(response, {
        status: 404,
        body: { error: { type: 'invalid_request_error', code: 'not_found', message: 'Unknown path' } },
      })
    const scripted = next.shift()
    if (scripted) return send(response, scripted)
    const [width, height] = String(JSON.parse(body).size).split('x').map(Number)
    send(response, {
      status: 200,
      body: {
        created: 1_700_000_000,
        data: [{ b64_json: png(width!, height!).toString('base64') }],
        usage: { total_tokens: 100 },
      },
    })
  })
  return {
    baseUrl: `${url}/v1`,
    received,
    next,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export interface FakeFal {
  baseUrl: string
  files: HttpsFixture
  received: Received[]
  /** Answers for the next submissions, in order; afterwards each submission is queued. */
  nextSubmit: Answer[]
  /** What the next completed requests' results are, in order; afterwards the model's usual output. */
  nextResult: Answer[]
  /** A status answer with `error` for the next requests (fal reports a run that died this way). */
  failWhileRunning: number
  close(): Promise<void>
}

interface FalRequest {
  model: string
  polls: number
}

/**
 * Models named flux answer images, every other model a GLB. fal queue semantics: status paths use the app id without subpath (fal-ai/flux/schnell →
 * fal-ai/flux), IN_QUEUE then IN_PROGRESS then COMPLETED, result at the response_url.
 */
export async function startFakeFal(outputs: { image: () => Buffer; model: () => Buffer }): Promise<FakeFal> {
  const files = await startHttpsFixture()
  const fileUrl = (name: string) => `https://127.0.0.1:${files.port}/files/${name}`
  const received: Received[] = []
  const requests = new Map<string, FalRequest & { fails: boolean }>()
  let counter = 0
  const fake: Omit<FakeFal, 'baseUrl' | 'close'> = {
    files,
    received,
    nextSubmit: [],
    nextResult: [],
    failWhileRunning: 0,
  }

  const { server, url } = await listen((request, body, response) => {
    received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
    if (request.headers.authorization !== 'Key test-fal-key')
      return send(response, { status: 401, body: { detail: 'Invalid key' } })
    const path = request.url ?? ''
    const statusMatch = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)\/status$/.exec(path)
    const resultMatch = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)$/.exec(path)
    if (request.method === 'POST') {
      const scripted = fake.nextSubmit.shift()
      if (scripted) return send(response, scripted)
      const model = path.slice(1)
      const id = `req-${++counter}`
      const fails = fake.failWhileRunning > 0
      if (fails) fake.failWhileRunning--
      requests.set(id, { model, polls: 0, fails })
      const app = model.split('/').slice(0, 2).join('/')
      return send(response, {
        status: 200,
        body: {
          request_id: id,
          response_url: `${url}/${app}/requests/${id}`,
          status_url: `${url}/${app}/requests/${id}/status`,
          cancel_url: `${url}/${app}/requests/${id}/cancel`,
          queue_position: 0,
        },
      })
    }
    if (statusMatch) {
      const queued = requests.get(statusMatch[2]!)
      if (!queued) return send(response, { status: 404, body: { detail: 'Request not found' } })
      queued.polls++
      if (queued.polls === 1)
        return send(response, { status: 202, body: { status: 'IN_QUEUE', queue_position: 2 } })
      if (queued.polls === 2)
        return send(response, { status: 202, body: { status: 'IN_PROGRESS', logs: [] } })
      if (queued.fails)
        return send(response, {
          status: 200,
          body: {
            status: 'COMPLETED',
            error: 'Runner crashed (CUDA out of memory)',
            error_type: 'runner_error',
          },
        })
      return send(response, {
        status: 200,
        body: { status: 'COMPLETED', logs: [], metrics: { inference_time: 1.2 } },
      })
    }
    if (resultMatch) {
      const queued = requests.get(resultMatch[2]!)
      if (!queued) return send(response, { status: 404, body: { detail: 'Request not found' } })
      const scripted = fake.nextResult.shift()
      if (scripted) return send(response, scripted)
      const name = `${resultMatch[2]}.${queued.model.includes('flux') ? 'png' : 'glb'}`
      const data = name.endsWith('.glb') ? outputs.model() : outputs.image()
      files.routes.set(`/files/${name}`, (_req, res) =>
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(data),
      )
      const file = {
        url: fileUrl(name),
        content_type: 'application/octet-stream',
        file_size: data.length,
        file_name: name,
      }
      return send(response, {
        status: 200,
        body: name.endsWith('.glb')
          ? { model_mesh: file, seed: 42 }
          : { images: [{ ...file, width: 1024, height: 1024 }], has_nsfw_concepts: [false], seed: 42 },
      })
    }
    send(response, { status: 404, body: { detail: 'Not found' } })
  })
  // The same object the handler reads, so a test's assignments reach it.
  return Object.assign(fake, {
    baseUrl: url,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await files.close()
    },
  })
}

export interface GenerationFakes {
  openai: FakeOpenAi
  fal: FakeFal
  /** Restores the environment and stops the fakes. */
  close(): Promise<void>
}

/**
 * Both provider fakes, with the environment that points the service at them (the worker's child
 * processes inherit it, as in production). `model` is the GLB the 3D endpoints answer with.
 */
export async function startGenerationFakes(
  model: Buffer,
  env: Record<string, string> = {},
): Promise<GenerationFakes> {
  const openai = await startFakeOpenAi()
  const fal = await startFakeFal({ image: () => Buffer.alloc(0), model: () => model })
  const caFile = join(mkdtempSync(join(tmpdir(), 'kiln-gen-ca-')), 'ca.pem')
  writeFileSync(caFile, fal.files.ca)
  const saved = { ...process.env }
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
    ...env,
  })
  return {
    openai,
    fal,
    async close() {
      process.env = saved
      await openai.close()
      await fal.close()
    },
  }
}
