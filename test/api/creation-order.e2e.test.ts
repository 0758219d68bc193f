// Job creation in the order that keeps work from happening before it is owed: a replay is answered
// first (no backpressure check, no download, no capacity reservation), then what the account decides
// without the input (402 for 0 credits) refuses the job before the URL is fetched or the body stored.
import { readdirSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { capacityStream } from '../../domain/capacity/events.ts'
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture.ts'
import { startTestService, type TestService } from '../support/service.ts'

const tetrahedron = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 0 0 1', 'f 1 3 2', 'f 1 2 4', 'f 1 4 3', 'f 2 3 4']
  .join('\n')
  .concat('\n')

interface Created {
  status: number
  id?: string
  code?: string
}

async function created(response: Response): Promise<Created> {
  const body = (await response.json()) as { id?: string; error?: { code: string } }
  return { status: response.status, id: body.id, code: body.error?.code }
}

let fixture: HttpsFixture
/** Nothing consumes its queue, and one queued job fills it: every new job after the first is 503 busy. */
let full: TestService
/** Room in the queue: what refuses a job here is the account. */
let roomy: TestService
let logins = 0

beforeAll(async () => {
  fixture = await startHttpsFixture()
  fixture.routes.set('/tetrahedron.obj', (_request, response) => {
    response.writeHead(200, { 'content-type': 'model/obj' }).end(tetrahedron)
  })
  const fetchPolicy = {
    ca: fixture.ca,
    allowedPorts: [fixture.port],
    allowAddresses: new Set(['127.0.0.1']),
  }
  full = await startTestService(
    { maxQueuedJobs: 1, maxActiveJobsPerAccount: 100 },
    { consumeJobs: false, fetchPolicy },
  )
  roomy = await startTestService({ maxActiveJobsPerAccount: 100 }, { consumeJobs: false, fetchPolicy })
})

afterAll(async () => {
  await full?.close()
  await roomy?.close()
  await fixture?.close()
})

const account = (service: TestService, credits: number) =>
  service.account({ credits, login: `order${++logins}` })
const urlJob = (key?: string) => ({
  method: 'POST',
  json: {
    url: `https://127.0.0.1:${fixture.port}/tetrahedron.obj`,
    ...(key === undefined ? {} : { idempotency_key: key }),
  },
})
const rawJob = (key: string, body: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/octet-stream', 'idempotency-key': key },
  body,
})
/**
 * Files (not the emptied folders) under the blob store's staging area. One the service moves or
 * deletes between the listing and its stat is not staged any more.
 */
const stagedFiles = (service: TestService) => {
  const root = join(service.services.ctx.config.dataDir, 'blobs')
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter(
      (path) =>
        path.includes('staging') && statSync(join(root, path), { throwIfNoEntry: false })?.isFile() === true,
    )
}

/**
 * Sends the head of a raw body and holds the rest back: the answer must come from what the server
 * decided without the input, since the input never completes.
 */
function partialRawBody(
  baseUrl: string,
  path: string,
  apiKey: string,
): Promise<{ status: number; body: string; finish: () => void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/octet-stream',
          'content-length': String(1024 * 1024),
        },
      },
      (response) => {
        let text = ''
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: text, finish: () => request.destroy() }),
        )
      },
    )
    request.on('error', reject)
    request.write(Buffer.alloc(64 * 1024, 0x20))
    setTimeout(() => {
      request.destroy()
      reject(new Error('no answer while the body was still arriving'))
    }, 5000).unref()
  })
}

describe('a replay is answered first', () => {
  it('a replay of a URL job is 200 under backpressure, and the URL is not fetched again', async () => {
    const dana = await account(full, 100)
    const first = await created(await dana.request('/v1/tools/split_3d_model/jobs', urlJob('url-once')))
    expect(first.status).toBe(202)
    const fetches = fixture.seen.length
    expect(fetches).toBe(1)

    // The queue is full now: a new job is refused, the replay is not, and it fetches nothing.
    const fresh = await created(await dana.request('/v1/tools/split_3d_model/jobs', urlJob('url-new')))
    expect(fresh).toEqual({ status: 503, id: undefined, code: 'busy' })
    const replay = await created(await dana.request('/v1/tools/split_3d_model/jobs', urlJob('url-once')))
    expect(replay).toEqual({ status: 200, id: first.id, code: undefined })
    expect(fixture.seen.length).toBe(fetches)
  })

  it('a replay of a raw-body job is recognised by its bytes; other bytes under the key are a conflict', async () => {
    const erin = await account(roomy, 100)
    const path = '/v1/tools/split_3d_model/jobs?filename=t.obj'
    const first = await created(await erin.request(path, rawJob('body-once', tetrahedron)))
    expect(first.status).toBe(202)
    expect(await created(await erin.request(path, rawJob('body-once', tetrahedron)))).toEqual({
      status: 200,
      id: first.id,
      code: undefined,
    })
    expect(await created(await erin.request(path, rawJob('body-once', `${tetrahedron}\n`)))).toEqual({
      status: 409,
      id: undefined,
      code: 'idempotency_conflict',
    })
    expect(stagedFiles(roomy)).toEqual([])
  })

  it('a replay of a generation job appends no capacity event', async () => {
    const saved = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-test-not-called'
    try {
      const fay = await account(roomy, 100)
      const job = { method: 'POST', json: { options: { prompt: 'a red cube' }, idempotency_key: 'gen-once' } }
      const first = await created(await fay.request('/v1/tools/create_image/jobs', job))
      expect(first.status).toBe(202)
      const stream = capacityStream(roomy.services.ctx.now())
      const before = await roomy.services.ctx.store.readStream(stream)
      expect(before.map((event) => event.type)).toEqual(['CapacityReserved'])
      const replay = await created(await fay.request('/v1/tools/create_image/jobs', job))
      expect(replay).toEqual({ status: 200, id: first.id, code: undefined })
      expect(await roomy.services.ctx.store.readStream(stream)).toEqual(before)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })
})

describe('the account decides before the input is read', () => {
  it("a 0-credit account's URL job is 402 and makes no request to the URL", async () => {
    const gus = await account(roomy, 0)
    const connections = fixture.connections()
    const refused = await created(await gus.request('/v1/tools/split_3d_model/jobs', urlJob()))
    expect(refused).toEqual({ status: 402, id: undefined, code: 'insufficient_credits' })
    expect(fixture.connections()).toBe(connections)
  })

  it("a 0-credit account's raw body is refused before it arrives and is never written to disk", async () => {
    const hal = await account(roomy, 0)
    const answer = await partialRawBody(
      roomy.baseUrl,
      '/v1/tools/split_3d_model/jobs?filename=big.obj',
      hal.apiKey,
    )
    try {
      expect(answer.status).toBe(402)
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'insufficient_credits' } })
      expect(stagedFiles(roomy)).toEqual([])
    } finally {
      answer.finish()
    }
  })
})
