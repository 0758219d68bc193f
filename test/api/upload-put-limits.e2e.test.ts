// Limits on the keyless upload PUT and on slow clients (issue 20 item 2): a body trickling a byte
// every few seconds is cut within the configured time, a silent connection is closed, one PUT at a
// time per upload URL, a few at a time per client address, and a request rate per address.
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

/** A raw HTTP/1.1 request whose body is sent by the test, byte by byte if it likes. */
async function openRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>) {
  const { port } = new URL(baseUrl)
  const socket = connect(Number(port), '127.0.0.1')
  await once(socket, 'connect')
  let received = ''
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString()
  })
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve())).then(() => Date.now())
  const head = Object.entries({ host: `127.0.0.1:${port}`, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`)
  return { socket, closed, received: () => received }
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0)

/** Resolves to the status line's code once the answer arrives. */
async function answered(request: { socket: Socket; received(): string }, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (statusOf(request.received()) === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
  return statusOf(request.received())
}

describe('signed PUT limits', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({
      rateLimit: { perSecond: 1000, burst: 1000 },
      httpTimeouts: { requestMs: 60_000, idleMs: 1500, keepAliveMs: 1000 },
      signedPuts: { minBytesPerSecond: 100, graceMs: 1000, concurrentPerAddress: 2, perSecond: 1, burst: 8 },
      storageLimits: { pendingUploads: 50, storedBytes: 10_000_000 },
    })
    ann = await service.account({ login: 'ann' })
  })
  afterAll(() => service?.close())

  async function uploadPath() {
    const created = await ann.request('/v1/uploads', { method: 'POST', json: { filename: 'model.obj' } })
    const url = new URL(((await created.json()) as { url: string }).url)
    return `${url.pathname}${url.search}`
  }

  const startPut = async (path: string, length = 1000) => {
    const request = await openRequest(service.baseUrl, 'PUT', path, {
      'content-type': 'application/octet-stream',
      'content-length': String(length),
    })
    request.socket.write('v')
    return request
  }

  it('cuts a PUT trickling two bytes a second once its rate falls below the minimum', async () => {
    const started = Date.now()
    const put = await startPut(await uploadPath())
    // A byte every 500 ms keeps the connection from ever being idle for the 1.5 s idle timeout, so
    // only the rate guard can end it (with a byte every 2 s, the idle timeout won the race on a
    // loaded machine and closed the socket without an answer).
    const trickle = setInterval(() => put.socket.write(' '), 500)
    try {
      const endedAt = await Promise.race([
        put.closed,
        new Promise<number>((r) => setTimeout(() => r(0), 8000)),
      ])
      expect(endedAt, 'the connection is closed').toBeGreaterThan(0)
      // Grace 1 s, checks each second: cut well before a trickle of 1000 bytes would end (~8 min).
      expect(endedAt - started).toBeLessThan(4000)
      expect(statusOf(put.received())).toBe(408)
      expect(put.received()).toContain('"code":"request_timeout"')
      expect(put.received().toLowerCase()).toContain('connection: close')
    } finally {
      clearInterval(trickle)
      put.socket.destroy()
    }
  })

  it('closes a connection that goes silent in the middle of a body', async () => {
    const started = Date.now()
    const request = await openRequest(service.baseUrl, 'POST', '/v1/uploads', {
      authorization: `Bearer ${ann.apiKey}`,
      'content-type': 'application/json',
      'content-length': '100',
    })
    request.socket.write('{"filename":')
    const endedAt = await Promise.race([
      request.closed,
      new Promise<number>((r) => setTimeout(() => r(0), 6000)),
    ])
    request.socket.destroy()
    expect(endedAt, 'the connection is closed').toBeGreaterThan(0)
    expect(endedAt - started).toBeLessThan(4000)
  })

  it('takes one PUT at a time per upload URL and two at a time per address', async () => {
    const first = await uploadPath()
    const holding = await startPut(first)
    const sameUrl = await startPut(first)
    expect(await answered(sameUrl)).toBe(429)
    expect(sameUrl.received()).toContain('"code":"rate_limited"')

    const second = await startPut(await uploadPath())
    const third = await startPut(await uploadPath())
    expect(await answered(third)).toBe(429)
    for (const request of [holding, sameUrl, second, third]) request.socket.destroy()
  })

  it('limits the rate of PUTs from one address', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const response = await fetch(`${service.baseUrl}/v1/uploads/up_x/file?expires=1&sig=bad`, {
        method: 'PUT',
        body: 'x',
      })
      statuses.push(response.status)
    }
    expect(statuses).toContain(403)
    expect(statuses.at(-1)).toBe(429)
  })
})
