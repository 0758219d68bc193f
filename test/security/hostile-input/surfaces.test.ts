// Hostile input over REST, MCP and tRPC (issue 20): long and non-ASCII names, odd headers (a
// malformed Host, X-Forwarded-*, Content-Type, Range, Idempotency-Key), oversized and malformed
// bodies. Every answer is below 500, has the expected status and error code, and shows no server
// path, stack or errno.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerConsole } from '../../../api/console/plugin.ts'
import { registerMcp } from '../../../api/mcp/plugin.ts'
import { expectNoInternals } from '../../support/leaks.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../../support/service.ts'
import { tinyPdf } from '../../support/tiny-pdf.ts'
import { rawRequest, utf8Header } from './raw-http.ts'

interface Answer {
  status: number
  body: string
}

interface Case {
  name: string
  send(): Promise<Answer>
  /** The status, or the statuses allowed. */
  status: number | number[]
  /** The spec error code the body names (REST `error.code`, MCP tool `error.code`, tRPC `appCode`). */
  code?: string
}

const fromResponse = async (response: Response): Promise<Answer> => ({
  status: response.status,
  body: await response.text(),
})

let service: TestService
let ann: TestAccount
let pdfJob: { id: string; files: { name: string; url: string }[] }

beforeAll(async () => {
  service = await startTestService(
    { rateLimit: { perSecond: 1000, burst: 1000 }, maxActiveJobsPerAccount: 20 },
    { plugins: [registerConsole, (app) => registerMcp(app, app.services)] },
  )
  ann = await service.account({ login: 'ann', credits: 100 })
  const created = await ann.request('/v1/tools/extract_pdf/jobs?filename=a.pdf', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: tinyPdf('Hostile input'),
  })
  const job = (await waitForJob(ann, ((await created.json()) as { id: string }).id)) as {
    id: string
    status: string
    result: { files: { name: string; url: string }[] }
  }
  expect(job.status).toBe('succeeded')
  pdfJob = { id: job.id, files: job.result.files }
})
afterAll(() => service?.close())

const raw = (method: string, path: string, headers: Record<string, string>, body: Buffer | string = '') =>
  rawRequest(service.baseUrl, method, path, headers, body)
const authorized = () => ({ authorization: `Bearer ${ann.apiKey}` })
const json = { 'content-type': 'application/json' }
const rest = (path: string, init?: Parameters<TestAccount['request']>[1]) =>
  ann.request(path, init).then(fromResponse)

function mcp(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return fetch(`${service.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ann.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }).then(fromResponse)
}
const callTool = (name: string, args: unknown) =>
  mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })

const trpc = (procedure: string, input: unknown) =>
  ann
    .request(`/internal/trpc/${procedure}`, { method: 'POST', json: input, token: ann.consoleToken })
    .then(fromResponse)

const trpcQuery = (procedure: string, encodedInput: string) =>
  ann
    .request(`/internal/trpc/${procedure}?input=${encodedInput}`, { token: ann.consoleToken })
    .then(fromResponse)

const longName = (length: number, extension = '.pdf') =>
  `${'n'.repeat(length - extension.length)}${extension}`
const utf8Name300 = `${'é'.repeat(148)}.pdf` // 300 bytes in UTF-8

const cases = (): Case[] => [
  // Names
  {
    name: 'upload name of 255 characters',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: longName(255) } }),
    status: 201,
  },
  {
    name: 'upload name of 256 characters',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: longName(256) } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'upload name of 300 UTF-8 bytes',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: utf8Name300 } }),
    status: 201,
  },
  {
    name: 'upload name of CJK, RTL override and emoji',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: '模型\u202Eblg.🙂.glb' } }),
    status: 201,
  },
  {
    name: 'upload name with a NUL',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: 'a\u0000.glb' } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'upload name that is only a parent folder',
    send: () => rest('/v1/uploads', { method: 'POST', json: { filename: '../..' } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'raw-body name of 10 000 characters',
    send: () =>
      rest(`/v1/tools/extract_pdf/jobs?filename=${longName(10_000)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: tinyPdf('x'),
      }),
    status: 400,
    code: 'invalid_request',
  },
  { name: 'job id of 5000 characters', send: () => rest(`/v1/jobs/${'j'.repeat(5000)}`), status: [400, 404] },
  {
    name: 'file name of 2000 characters',
    send: () => rest(`/v1/jobs/${pdfJob.id}/files/${'f'.repeat(2000)}.txt`),
    status: [400, 404],
  },
  {
    name: 'non-ASCII file name',
    send: () => rest(`/v1/jobs/${pdfJob.id}/files/${encodeURIComponent('файл.txt')}`),
    status: 404,
    code: 'not_found',
  },
  {
    name: 'percent sign alone in a path',
    send: () => raw('GET', '/v1/jobs/%', authorized()),
    status: [400, 404],
  },

  // Host and X-Forwarded-*
  {
    name: 'malformed Host on REST',
    send: () => raw('GET', '/v1/me', { ...authorized(), host: '[not a host' }),
    status: [200, 400],
  },
  {
    name: 'malformed Host on an upload',
    send: () =>
      raw('POST', '/v1/uploads', { ...authorized(), ...json, host: 'a b:c' }, '{"filename":"a.glb"}'),
    status: [201, 400],
  },
  {
    name: 'malformed X-Forwarded-* on REST',
    send: () =>
      raw('GET', `/v1/jobs/${pdfJob.id}`, {
        ...authorized(),
        'x-forwarded-host': '[::1',
        'x-forwarded-proto': 'javascript',
        'x-forwarded-for': 'not an address, ::::',
        'x-forwarded-port': '99999',
      }),
    status: 200,
  },
  {
    name: 'malformed X-Forwarded-Host on /mcp',
    send: () => mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-forwarded-host': 'exa mple' }),
    status: 200,
  },
  {
    name: 'malformed Host on the console',
    send: () => raw('GET', '/console', { host: '%%%' }),
    status: [200, 400],
  },

  // Content-Type
  {
    name: 'JSON route with text/plain',
    send: () =>
      raw('POST', '/v1/uploads', { ...authorized(), 'content-type': 'text/plain' }, '{"filename":"a.glb"}'),
    status: [400, 415],
  },
  {
    name: 'JSON route with an unknown charset',
    send: () =>
      raw(
        'POST',
        '/v1/uploads',
        { ...authorized(), 'content-type': 'application/json; charset=utf-99' },
        '{"filename":"a.glb"}',
      ),
    status: [201, 400, 415],
  },
  {
    name: 'JSON route with multipart and no boundary',
    send: () => raw('POST', '/v1/uploads', { ...authorized(), 'content-type': 'multipart/form-data' }, '--x'),
    status: [400, 415],
  },
  {
    name: 'JSON route with a garbage Content-Type',
    send: () => raw('POST', '/v1/uploads', { ...authorized(), 'content-type': ';;;=' }, '{}'),
    status: [400, 415],
  },
  {
    name: 'invalid JSON',
    send: () => raw('POST', '/v1/uploads', { ...authorized(), ...json }, '{"filename":'),
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'JSON with a __proto__ member',
    send: () =>
      raw(
        'POST',
        '/v1/uploads',
        { ...authorized(), ...json },
        '{"filename":"a.glb","__proto__":{"admin":true}}',
      ),
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'JSON nested 20 000 deep',
    send: () =>
      raw('POST', '/v1/uploads', { ...authorized(), ...json }, `${'['.repeat(20_000)}${']'.repeat(20_000)}`),
    status: 400,
  },
  {
    name: 'JSON body over the 1 MiB limit',
    send: () =>
      raw('POST', '/v1/uploads', { ...authorized(), ...json }, `{"filename":"${'a'.repeat(1_100_000)}"}`),
    status: 413,
    code: 'too_large',
  },
  {
    name: 'job file body with application/json',
    send: () =>
      rest('/v1/tools/extract_pdf/jobs?filename=a.pdf', {
        method: 'POST',
        headers: json,
        body: tinyPdf('x'),
      }),
    status: 400,
  },
  {
    name: 'Content-Length that is not a number',
    send: () => raw('POST', '/v1/uploads', { ...authorized(), ...json, 'content-length': 'abc' }, '{}'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'request line that is not HTTP',
    send: () => raw('GET', '/v1/me HTTP/1.1 extra', authorized()),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'URL of 100 000 characters',
    send: () => raw('GET', `/v1/jobs/${'j'.repeat(100_000)}`, authorized()),
    status: 400,
    code: 'invalid_request',
  },

  // Range
  {
    name: 'Range past the end of a download',
    send: () => fetch(pdfJob.files[0]!.url, { headers: { range: 'bytes=999999999-' } }).then(fromResponse),
    status: [200, 206, 416],
  },
  {
    name: 'Range that is not bytes',
    send: () => fetch(pdfJob.files[0]!.url, { headers: { range: 'lines=1-2' } }).then(fromResponse),
    status: [200, 206, 416],
  },
  {
    name: 'Range backwards',
    send: () => fetch(pdfJob.files[0]!.url, { headers: { range: 'bytes=50-1' } }).then(fromResponse),
    status: [200, 206, 416],
  },
  {
    name: 'Range with 1000 parts',
    send: () =>
      fetch(pdfJob.files[0]!.url, {
        headers: { range: `bytes=${Array.from({ length: 1000 }, (_, i) => `${i}-${i}`).join(',')}` },
      }).then(fromResponse),
    status: [200, 206, 416],
  },

  // Idempotency-Key
  {
    name: 'Idempotency-Key of 101 characters',
    send: () =>
      rest('/v1/tools/get_random_numbers/jobs', {
        method: 'POST',
        json: { options: { count: 1 } },
        headers: { 'idempotency-key': 'k'.repeat(101) },
      }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'Idempotency-Key in raw UTF-8',
    send: () =>
      raw(
        'POST',
        '/v1/tools/get_random_numbers/jobs',
        { ...authorized(), ...json, 'idempotency-key': utf8Header('ключ-鍵') },
        '{"options":{"count":1}}',
      ),
    status: [200, 202, 400],
  },
  {
    name: 'Idempotency-Key of spaces',
    send: () =>
      raw(
        'POST',
        '/v1/tools/get_random_numbers/jobs',
        { ...authorized(), ...json, 'idempotency-key': '   ' },
        '{"options":{"count":1}}',
      ),
    status: [200, 202, 400],
  },
  {
    name: 'Idempotency-Key repeated',
    send: () =>
      raw(
        'POST',
        '/v1/tools/get_random_numbers/jobs',
        { ...authorized(), ...json, 'idempotency-key': 'a\r\nidempotency-key: b' },
        '{"options":{"count":1}}',
      ),
    status: [200, 202, 400],
  },

  // Authorization and Request-Id
  {
    name: 'Authorization of 100 000 characters',
    send: () => rest('/v1/me', { token: 'k'.repeat(100_000) }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'Authorization in raw UTF-8',
    send: () => raw('GET', '/v1/me', { authorization: utf8Header('Bearer ключ') }),
    status: 401,
    code: 'unauthorized',
  },
  {
    name: 'Request-Id in raw UTF-8',
    send: () => raw('GET', '/v1/me', { ...authorized(), 'request-id': utf8Header('ид-🙂') }),
    status: 200,
  },

  // MCP
  {
    name: 'MCP tool call with a 10 000-character upload name',
    send: () => callTool('create_upload', { filename: longName(10_000, '.glb') }),
    status: 200,
  },
  {
    name: 'MCP tool call with a non-ASCII upload name',
    send: () => callTool('create_upload', { filename: '模型 модель.glb' }),
    status: 200,
  },
  { name: 'MCP call of an unknown tool', send: () => callTool('rm_rf', {}), status: 200 },
  {
    name: 'MCP job of an unknown id',
    send: () => callTool('get_job', { job_id: `j_${'z'.repeat(26)}` }),
    status: 200,
    code: 'not_found',
  },
  { name: 'MCP with invalid JSON', send: () => mcp('{"jsonrpc":'), status: [400] },
  {
    name: 'MCP with a batch of 500 calls',
    send: () => mcp(Array.from({ length: 500 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))),
    status: [200, 400],
  },
  {
    name: 'MCP with an unknown protocol version',
    send: () =>
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' }),
    status: [200, 400],
  },
  {
    name: 'MCP with text/plain',
    send: () => mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': 'text/plain' }),
    status: [400, 415],
  },

  // tRPC
  { name: 'tRPC unknown procedure', send: () => trpc('nothing.here', {}), status: 404 },
  {
    name: 'tRPC key name of 61 characters',
    send: () => trpc('keys.create', { name: 'k'.repeat(61) }),
    status: 400,
  },
  {
    name: 'tRPC revoke of an unknown key',
    send: () => trpc('keys.revoke', { id: 'key_nope' }),
    status: 404,
    code: 'not_found',
  },
  {
    name: 'tRPC job of a 5000-character id',
    send: () => trpcQuery('jobs.get', encodeURIComponent(JSON.stringify({ id: 'j'.repeat(5000) }))),
    status: 400,
  },
  {
    name: 'tRPC job of an unknown id',
    send: () => trpcQuery('jobs.get', encodeURIComponent(JSON.stringify({ id: `j_${'z'.repeat(26)}` }))),
    status: [200, 404],
  },
  { name: 'tRPC with malformed input', send: () => trpcQuery('jobs.get', '%7B%22a'), status: 400 },
  {
    name: 'tRPC batch of 200 calls',
    send: () =>
      ann
        .request(`/internal/trpc/${Array(200).fill('me').join(',')}?batch=1`, { token: ann.consoleToken })
        .then(fromResponse),
    status: [200, 207, 400, 413, 414, 431],
  },
]

describe('hostile input over REST, MCP and tRPC', () => {
  it.each(cases().map((c) => [c.name, c] as const))('%s', async (_name, hostile) => {
    const answer = await hostile.send()
    const allowed = Array.isArray(hostile.status) ? hostile.status : [hostile.status]
    expect(answer.status, answer.body.slice(0, 300)).toBeGreaterThan(0)
    expect(answer.status, answer.body.slice(0, 300)).toBeLessThan(500)
    expect(allowed, `status ${answer.status}: ${answer.body.slice(0, 300)}`).toContain(answer.status)
    if (hostile.code) expect(answer.body).toMatch(new RegExp(`"(?:code|appCode)":"${hostile.code}"`))
    expectNoInternals(answer.body, hostile.name)
  })
})
