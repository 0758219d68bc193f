// Generation over REST against the local provider fakes: availability by configuration, the
// image → model → optimize pipeline through job_file, failures, refusals and rate limits refunded,
// the daily capacity and deleted keys.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { capacityDecider } from '../../app/generation/capacity.ts'
import { readState } from '../../app/handle-command.ts'
import { capacityStream } from '../../domain/capacity/events.ts'
import {
  corpusDir,
  startTestService,
  type TestAccount,
  type TestService,
  waitForJob,
} from '../support/service.ts'
import { type FakeFal, type FakeOpenAi, type GenerationFakes, startGenerationFakes } from './fakes.ts'

interface Job {
  id: string
  status: string
  credits_charged: number | null
  error: { code: string; message: string; hint: string | null } | null
  result: { files: { name: string }[]; notes?: string[]; [field: string]: unknown } | null
}

const boxGlb = readFileSync(join(corpusDir, 'glb', 'Box.glb'))
const prompt = 'a ceramic teapot on a plain background'
let service: TestService
let openai: FakeOpenAi
let fal: FakeFal
let fakes: GenerationFakes
let logins = 0

const start = (account: TestAccount, tool: string, body: Record<string, unknown>) =>
  account.request(`/v1/tools/${tool}/jobs`, { method: 'POST', json: body })
const balance = async (account: TestAccount) =>
  ((await (await account.request('/v1/billing')).json()) as { balance: number }).balance
/**
 * The balance once a failed job's refund is in: the job fails on its own stream and the refund is
 * the settlement's append on the account's right after, so Billing may show it a moment after the
 * job reads failed.
 */
const settledBalance = (account: TestAccount, expected: number) =>
  expect.poll(() => balance(account), { timeout: 5000, interval: 50 }).toBe(expected)
const fresh = () => service.account({ credits: 100, login: `gen${++logins}` })

async function run(account: TestAccount, tool: string, body: Record<string, unknown>): Promise<Job> {
  const response = await start(account, tool, body)
  expect(response.status).toBe(202)
  return (await waitForJob(account, ((await response.json()) as Job).id)) as unknown as Job
}

beforeAll(async () => {
  fakes = await startGenerationFakes(boxGlb, {
    FAL_TEXT_TO_3D_MODEL: 'tripo3d/tripo/v2.5/text-to-3d',
    GENERATION_RATE_LIMIT_WAIT_S: '0',
  })
  ;({ openai, fal } = fakes)
  service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
})

afterAll(async () => {
  await service?.close()
  await fakes?.close()
})

describe('generation over REST', () => {
  it('lists a generation tool only while its provider is configured; otherwise 404 names the variables', async () => {
    const account = await fresh()
    const listed = async () =>
      ((await (await account.request('/v1/tools')).json()) as { tools: { id: string }[] }).tools.map(
        (t) => t.id,
      )
    expect(await listed()).toEqual(
      expect.arrayContaining(['create_image', 'create_3d_model', 'create_3d_model_from_image']),
    )
    const model = process.env.FAL_TEXT_TO_3D_MODEL
    delete process.env.FAL_TEXT_TO_3D_MODEL
    try {
      expect(await listed()).not.toContain('create_3d_model')
      const refused = await start(account, 'create_3d_model', {
        options: { description: 'a chair' },
        idempotency_key: 'k',
      })
      expect(refused.status).toBe(404)
      expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'not_found',
        message: expect.stringMatching(/FAL_TEXT_TO_3D_MODEL/),
      })
    } finally {
      process.env.FAL_TEXT_TO_3D_MODEL = model
    }
  })

  it('create_image → its image.png as job_file → create_3d_model_from_image: both succeed and are charged', async () => {
    const account = await fresh()
    const image = await run(account, 'create_image', {
      options: { prompt, transparent_background: true, seed: 5 },
      idempotency_key: 'img-1',
    })
    expect(image).toMatchObject({
      status: 'succeeded',
      credits_charged: 8,
      result: { provider: 'openai/gpt-image-1', width: 1024, height: 1024, transparent_background: true },
    })
    expect(image.result!.files.map((f) => f.name)).toEqual(['image.png'])
    expect(JSON.parse(openai.received.at(-1)!.body)).toMatchObject({ prompt, background: 'transparent' })

    const model = await run(account, 'create_3d_model_from_image', {
      job_file: { job_id: image.id, name: 'image.png' },
      idempotency_key: 'model-1',
    })
    expect(model).toMatchObject({
      status: 'succeeded',
      credits_charged: 50,
      result: { provider: 'fal/fal-ai/trellis', image: { width: 1024, height: 1024, format: 'png' } },
    })
    expect(model.result!.files.map((f) => f.name)).toContain('model.glb')
    expect(model.result!.scale_applied).toBeGreaterThan(0)
    const submitted = JSON.parse(
      fal.received.find((r) => r.method === 'POST' && r.url === '/fal-ai/trellis')!.body,
    ) as { image_url: string }
    expect(submitted.image_url).toMatch(/^data:image\/png;base64,iVBOR/)
    expect(await balance(account)).toBe(100 - 8 - 50)

    const optimized = await run(account, 'optimize_3d_model', {
      job_file: { job_id: model.id, name: 'model.glb' },
      idempotency_key: 'opt-1',
    })
    expect(optimized.status).toBe('succeeded')
    expect(optimized.result!.files.map((f) => f.name).some((name) => name.endsWith('.glb'))).toBe(true)
  })

  it('create_3d_model sends the description in the body and delivers a grounded model', async () => {
    const account = await fresh()
    const job = await run(account, 'create_3d_model', {
      options: { description: 'a wooden stool', seed: 11 },
      idempotency_key: 'text-1',
    })
    expect(job).toMatchObject({
      status: 'succeeded',
      credits_charged: 60,
      result: { provider: 'fal/tripo3d/tripo/v2.5/text-to-3d', seed: 11 },
    })
    const submit = fal.received.filter((r) => r.method === 'POST').at(-1)!
    expect(JSON.parse(submit.body)).toEqual({ prompt: 'a wooden stool', seed: 11 })
    expect(submit.url).not.toContain('stool')
  })

  it('a provider that fails mid-job fails the job with upstream_failed and refunds it in full', async () => {
    const account = await fresh()
    fal.failWhileRunning = 1
    const job = await run(account, 'create_3d_model', {
      options: { description: 'a lamp' },
      idempotency_key: 'dies',
    })
    expect(job).toMatchObject({
      status: 'failed',
      credits_charged: 0,
      error: {
        code: 'upstream_failed',
        message: expect.stringMatching(/while it ran/),
        hint: expect.any(String),
      },
    })
    await settledBalance(account, 100)
    const billing = (await (await account.request('/v1/billing')).json()) as {
      entries: { kind: string; amount: number }[]
    }
    expect(billing.entries.map((e) => e.kind)).toEqual(expect.arrayContaining(['charge', 'refund']))
  })

  it('a content-policy refusal fails with upstream_refused and costs nothing', async () => {
    const account = await fresh()
    openai.next.push({
      status: 400,
      body: {
        error: {
          type: 'image_generation_user_error',
          code: 'moderation_blocked',
          message: 'Rejected by the safety system.',
        },
      },
    })
    const job = await run(account, 'create_image', { options: { prompt }, idempotency_key: 'refused' })
    expect(job).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'upstream_refused' } })
    await settledBalance(account, 100)
  })

  it('410 job_deleted for the key of a deleted job', async () => {
    const account = await fresh()
    const job = await run(account, 'create_image', { options: { prompt }, idempotency_key: 'to-delete' })
    expect((await account.request(`/v1/jobs/${job.id}`, { method: 'DELETE' })).status).toBe(200)
    const again = await start(account, 'create_image', { options: { prompt }, idempotency_key: 'to-delete' })
    expect(again.status).toBe(410)
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('job_deleted')
  })

  it('503 capacity_exhausted with Retry-After once the day is used up; a known key still returns its job', async () => {
    const account = await fresh()
    const first = await run(account, 'create_image', { options: { prompt }, idempotency_key: 'cap-1' })
    const { state } = await readState(service.services.ctx.store, capacityStream(Date.now()), capacityDecider)
    process.env.GENERATION_DAILY_CAPACITY = String(state.held.size)
    try {
      const refused = await start(account, 'create_image', { options: { prompt }, idempotency_key: 'cap-2' })
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('capacity_exhausted')
      const replay = await start(account, 'create_image', { options: { prompt }, idempotency_key: 'cap-1' })
      expect(replay.status).toBe(200)
      expect(((await replay.json()) as Job).id).toBe(first.id)
    } finally {
      delete process.env.GENERATION_DAILY_CAPACITY
    }
  })

  // Last for create_image: it leaves the provider known as limiting for 30 s.
  it('a provider rate limit fails the job refunded, and admission answers 429 rate_limited with Retry-After meanwhile', async () => {
    const account = await fresh()
    openai.next.push({
      status: 429,
      body: { error: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached' } },
      headers: { 'retry-after': '30' },
    })
    const job = await run(account, 'create_image', { options: { prompt }, idempotency_key: 'limited' })
    expect(job).toMatchObject({
      status: 'failed',
      credits_charged: 0,
      error: { code: 'rate_limited', hint: expect.stringMatching(/^Retry after 30 s/) },
    })
    await settledBalance(account, 100)
    const other = await fresh()
    const refused = await start(other, 'create_image', { options: { prompt }, idempotency_key: 'later' })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  })
})
