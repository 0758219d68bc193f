// Price quotes against a real service: for every priced tool that runs here, the quote of an input
// equals what a job with the same input is then charged (and measures the same units), and the quote
// itself charges nothing, holds no slot and uses no quota. Generation tools need a paid provider to
// run; their quote is checked against the catalog price of one unit.
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobStream } from '../../domain/job/events.ts'
import { configureProviders } from '../mcp/provider-env.ts'
import { corpusDir, startTestService, type TestAccount, type TestService } from '../support/service.ts'
import { tinyPdf } from '../support/tiny-pdf.ts'

interface Quote {
  tool: string
  units: number
  unit: string
  credits: number
  balance: number
  available: number
  admitted: boolean
  code: string | null
}

const hasCorpus = existsSync(join(corpusDir, 'glb'))
if (!hasCorpus && process.env.CI) throw new Error(`the shared corpus is missing at ${corpusDir}`)

type Input =
  | { kind: 'body'; filename: string; bytes: Buffer; query?: string }
  | { kind: 'json'; json: Record<string, unknown> }

describe.skipIf(!hasCorpus)('price quotes', () => {
  let service: TestService
  let alice: TestAccount

  beforeAll(async () => {
    service = await startTestService({
      rateLimit: { perSecond: 1000, burst: 1000 },
      quoteRateLimit: { perSecond: 1000, burst: 1000 },
    })
    alice = await service.account({ credits: 5000, login: 'alice' })
  })
  afterAll(() => service.close())

  const send = (account: TestAccount, path: string, input: Input, headers: Record<string, string> = {}) =>
    input.kind === 'body'
      ? account.request(`${path}?filename=${input.filename}${input.query ?? ''}`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream', ...headers },
          body: input.bytes,
        })
      : account.request(path, { method: 'POST', json: input.json, headers })

  const balance = async (account: TestAccount) =>
    ((await (await account.request('/v1/billing')).json()) as { balance: number }).balance

  const quoteOf = async (account: TestAccount, tool: string, input: Input) => {
    const response = await send(account, `/v1/tools/${tool}/quote`, input)
    expect(response.status, await response.clone().text()).toBe(200)
    return (await response.json()) as Quote
  }

  const corpus = (file: string): Input => ({
    kind: 'body',
    filename: file.split('/').at(-1)!,
    bytes: readFileSync(join(corpusDir, file)),
  })

  const cases: [string, () => Input][] = [
    ['split_3d_model', () => corpus('glb/ShapeCollection.glb')],
    ['simplify_3d_model', () => corpus('stl/Spider_binary.stl')],
    ['optimize_3d_model', () => corpus('glb/CesiumMan.glb')],
    ['extract_pdf', () => ({ kind: 'body', filename: 'one.pdf', bytes: tinyPdf('one page') })],
    ['extract_pdf', () => corpus('pdf/long/bashref.pdf')],
    ['get_random_numbers', () => ({ kind: 'json', json: { options: { count: 5 } } })],
  ]

  for (const [tool, input] of cases) {
    it(`quotes ${tool} at what the job is then charged, and charges nothing for the quote`, async () => {
      const before = await balance(alice)
      const quote = await quoteOf(alice, tool, input())
      expect(quote).toMatchObject({ tool, admitted: true, code: null, balance: before })
      expect(quote.units).toBeGreaterThan(0)
      expect(await balance(alice)).toBe(before)

      const created = await send(alice, `/v1/tools/${tool}/jobs`, input(), {
        prefer: 'wait=60',
        'idempotency-key': randomUUID(),
      })
      const job = (await created.json()) as { id: string; status: string; credits_charged: number }
      expect(job.status).toBe('succeeded')
      expect(job.credits_charged).toBe(quote.credits)
      const measured = (await service.services.ctx.store.readStream(jobStream(job.id))).find(
        (event) => event.type === 'JobMeasured',
      )!.data as { units: number }
      expect(measured.units).toBe(quote.units)
      expect(await balance(alice)).toBe(before - quote.credits)
    })
  }

  it('quotes the generation tools at their catalog price for one unit', async () => {
    const restore = configureProviders()
    try {
      expect(
        (await quoteOf(alice, 'create_image', { kind: 'json', json: { options: { prompt: 'a kiln' } } }))
          .credits,
      ).toBe(8)
      expect(
        (
          await quoteOf(alice, 'create_3d_model', {
            kind: 'json',
            json: { options: { description: 'a kiln' } },
          })
        ).credits,
      ).toBe(60)
    } finally {
      restore()
    }
  })

  it('says a job would not be admitted, with the code it would get', async () => {
    const broke = await service.account({ credits: 0, login: 'broke' })
    const quote = await quoteOf(broke, 'get_random_numbers', { kind: 'json', json: {} })
    expect(quote).toMatchObject({ admitted: false, code: 'insufficient_credits', credits: 1, balance: 0 })
    const refused = await broke.request('/v1/tools/get_random_numbers/jobs', {
      method: 'POST',
      json: { idempotency_key: randomUUID() },
    })
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_credits')
  })

  it('refuses what job creation refuses, with the same codes', async () => {
    expect((await alice.request('/v1/tools/no_such_tool/quote', { method: 'POST', json: {} })).status).toBe(
      404,
    )
    const wrongType = await send(alice, '/v1/tools/split_3d_model/quote', {
      kind: 'body',
      filename: 'notes.txt',
      bytes: Buffer.from('hello'),
    })
    expect(wrongType.status).toBe(400)
    const broken = await send(alice, '/v1/tools/split_3d_model/quote', {
      kind: 'body',
      filename: 'broken.glb',
      bytes: Buffer.from('glTF not really'),
    })
    expect(broken.status).toBe(422)
  })
})

describe('the quote rate limit', () => {
  let service: TestService

  beforeAll(async () => {
    service = await startTestService({ quoteRateLimit: { perSecond: 1 / 60, burst: 2 } })
  })
  afterAll(() => service.close())

  it('is its own: quotes are refused past it while other requests still pass', async () => {
    const account = await service.account({ login: 'quoter' })
    const quote = () => account.request('/v1/tools/get_random_numbers/quote', { method: 'POST', json: {} })
    expect((await quote()).status).toBe(200)
    expect((await quote()).status).toBe(200)
    const limited = await quote()
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await account.request('/v1/jobs')).status).toBe(200)
  })
})
