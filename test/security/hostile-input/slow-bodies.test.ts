// Slow bodies on every surface (issue 20): a request trickling one byte a second to REST, MCP or
// tRPC is cut (408, or the connection closed) within the configured request timeout, and one that
// goes silent within the idle timeout; what little is answered shows no server internals.
import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../../api/console/plugin.ts'
import { registerMcp } from '../../../api/mcp/plugin.ts'
import { expectNoInternals } from '../../support/leaks.ts'
import { startTestService, type TestAccount, type TestService } from '../../support/service.ts'

const requestMs = 2000
const idleMs = 1500

describe('slow bodies', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService(
      { rateLimit: { perSecond: 1000, burst: 1000 }, httpTimeouts: { requestMs, idleMs, keepAliveMs: 1000 } },
      { plugins: [registerConsole, (app) => registerMcp(app, app.services)] },
    )
    ann = await service.account({ login: 'ann' })
  })
  afterAll(() => service?.close())

  /** Sends the head and then one byte every `everyMs` (never, when null); resolves when the server ends it. */
  async function trickle(path: string, headers: Record<string, string>, everyMs: number | null) {
    const { port } = new URL(service.baseUrl)
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString()
    })
    socket.on('error', () => {})
    const started = Date.now()
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': '1000', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{`)
    const timer = everyMs === null ? null : setInterval(() => socket.write(' '), everyMs)
    const ended = await Promise.race([
      new Promise<void>((resolve) => socket.once('close', () => resolve())).then(() => Date.now() - started),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
    ])
    if (timer) clearInterval(timer)
    socket.destroy()
    return { endedAfterMs: ended, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), answer }
  }

  const surfaces = () =>
    [
      [
        'REST raw-body job',
        '/v1/tools/inspect_3d_model/jobs?filename=a.obj',
        { authorization: `Bearer ${ann.apiKey}`, 'content-type': 'application/octet-stream' },
      ],
      [
        'REST JSON',
        '/v1/uploads',
        { authorization: `Bearer ${ann.apiKey}`, 'content-type': 'application/json' },
      ],
      [
        'MCP',
        '/mcp',
        {
          authorization: `Bearer ${ann.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      ],
      [
        'tRPC',
        '/internal/trpc/keys.create',
        { authorization: `Bearer ${ann.consoleToken}`, 'content-type': 'application/json' },
      ],
    ] as const

  it.each([0, 1, 2, 3])(
    'cuts a body trickling a byte a second (surface %i) within the request timeout',
    async (index) => {
      const [name, path, headers] = surfaces()[index]!
      const result = await trickle(path, headers, 1000)
      expect(result.endedAfterMs, `${name}: still open after 10 s`).not.toBeNull()
      // The request timeout, plus Node's check interval (a quarter of it), plus scheduling slack.
      expect(result.endedAfterMs!, name).toBeLessThan(requestMs + requestMs / 4 + 1000)
      expect([0, 408], `${name}: ${result.answer.slice(0, 200)}`).toContain(result.status)
      if (result.status === 408) expect(result.answer).toContain('{"error":{"code":"invalid_request"')
      expectNoInternals(result.answer, name)
    },
  )

  it.each([0, 1, 2, 3])(
    'closes a body that goes silent (surface %i) within the idle timeout',
    async (index) => {
      const [name, path, headers] = surfaces()[index]!
      const result = await trickle(path, headers, null)
      expect(result.endedAfterMs, `${name}: still open after 10 s`).not.toBeNull()
      expect(result.endedAfterMs!, name).toBeLessThan(idleMs + 1000)
      expectNoInternals(result.answer, name)
    },
  )
})
