// Each adapter against a local server speaking its provider's wire format: request shape, result,
// errors, refusals and rate limits.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DownloadPolicy } from '../../workers/providers/download.ts'
import { falImageTo3dProvider, falTextTo3dProvider } from '../../workers/providers/fal-3d.ts'
import { falImageProvider } from '../../workers/providers/fal-image.ts'
import { openAiImageProvider } from '../../workers/providers/openai-images.ts'
import { type ProviderCall, ProviderError } from '../../workers/providers/port.ts'
import { corpusDir } from '../support/service.ts'
import { type FakeFal, type FakeOpenAi, png, startFakeFal, startFakeOpenAi } from './fakes.ts'

const boxGlb = readFileSync(join(corpusDir, 'glb', 'Box.glb'))
const statuses: string[] = []
const call: ProviderCall = {
  signal: new AbortController().signal,
  onStatus: (message) => statuses.push(message),
}
const prompt = 'a small red teapot, studio lighting'

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ProviderError)
  return error as ProviderError
}

describe('OpenAI Images adapter', () => {
  let openai: FakeOpenAi
  beforeAll(async () => {
    openai = await startFakeOpenAi()
  })
  afterAll(() => openai.close())
  const provider = () =>
    openAiImageProvider({ apiKey: 'sk-test', model: 'gpt-image-1', baseUrl: openai.baseUrl })

  it('posts the prompt in the JSON body with size, transparent background and PNG output, and decodes b64_json', async () => {
    const result = await provider().generateImage(
      { prompt, width: 1536, height: 1024, transparentBackground: true, seed: 7 },
      call,
    )
    const request = openai.received.at(-1)!
    expect(request.headers.authorization).toBe('Bearer sk-test')
    expect(request.url).toBe('/v1/images/generations')
    expect(request.url).not.toContain('teapot')
    expect(JSON.parse(request.body)).toEqual({
      model: 'gpt-image-1',
      prompt,
      n: 1,
      size: '1536x1024',
      background: 'transparent',
      output_format: 'png',
    })
    expect(Buffer.from(result.file.bytes).subarray(0, 8)).toEqual(png(1, 1).subarray(0, 8))
    expect(result.file.bytes.length).toBe(png(1536, 1024).length)
    expect(result).toMatchObject({
      source: 'openai/gpt-image-1',
      file: { extension: 'png' },
      notes: [expect.stringMatching(/no seed/)],
    })
  })

  it('429 with retry-after-ms or retry-after becomes rate_limited with the delay in seconds', async () => {
    openai.next.push({
      status: 429,
      body: { error: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached' } },
      headers: { 'retry-after-ms': '2500' },
    })
    expect(
      await failureOf(
        provider().generateImage({ prompt, width: 1024, height: 1024, transparentBackground: false }, call),
      ),
    ).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 3 })
    openai.next.push({
      status: 429,
      body: { error: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached' } },
      headers: { 'retry-after': '20' },
    })
    expect(
      await failureOf(
        provider().generateImage({ prompt, width: 1024, height: 1024, transparentBackground: false }, call),
      ),
    ).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 20 })
  })

  it('insufficient_quota is a failure, not a passing limit; moderation_blocked is a refusal; 500 and 401 fail', async () => {
    const cases: [Parameters<FakeOpenAi['next']['push']>[0], string][] = [
      [
        {
          status: 429,
          body: {
            error: {
              type: 'insufficient_quota',
              code: 'insufficient_quota',
              message: 'You exceeded your current quota',
            },
          },
        },
        'failed',
      ],
      [
        {
          status: 400,
          body: {
            error: {
              type: 'image_generation_user_error',
              code: 'moderation_blocked',
              message: 'Your request was rejected by the safety system.',
            },
          },
        },
        'refused',
      ],
      [
        {
          status: 500,
          body: { error: { type: 'server_error', code: null, message: 'The server had an error' } },
        },
        'failed',
      ],
      [
        {
          status: 401,
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'invalid_api_key',
              message: 'Incorrect API key provided',
            },
          },
        },
        'failed',
      ],
    ]
    for (const [answer, kind] of cases) {
      openai.next.push(answer)
      const error = await failureOf(
        provider().generateImage({ prompt, width: 1024, height: 1024, transparentBackground: false }, call),
      )
      expect(error.kind).toBe(kind)
      expect(error.message).not.toContain('teapot')
    }
  })

  it('an answer without an image fails', async () => {
    openai.next.push({ status: 200, body: { created: 1, data: [] } })
    expect(
      (
        await failureOf(
          provider().generateImage({ prompt, width: 1024, height: 1024, transparentBackground: false }, call),
        )
      ).kind,
    ).toBe('failed')
  })
})

describe('fal queue adapters', () => {
  let fal: FakeFal
  let download: DownloadPolicy
  beforeAll(async () => {
    fal = await startFakeFal({ image: () => png(64, 64), model: () => boxGlb })
    download = {
      maxBytes: 10_000_000,
      timeoutMs: 10_000,
      allowedPorts: [fal.files.port],
      allowAddresses: new Set(['127.0.0.1']),
      ca: fal.files.ca,
    }
  })
  afterAll(() => fal.close())
  const config = () => ({ key: 'test-fal-key', baseUrl: fal.baseUrl, pollIntervalMs: 5 })

  it('text-to-3D: submit with Key auth, status IN_QUEUE → IN_PROGRESS → COMPLETED on the app path, result, GLB downloaded over HTTPS', async () => {
    statuses.length = 0
    fal.received.length = 0
    const result = await falTextTo3dProvider(
      config(),
      'tripo3d/tripo/v2.5/text-to-3d',
      download,
    ).generateFromText({ description: prompt, seed: 3 }, call)
    expect(Buffer.from(result.file.bytes)).toEqual(boxGlb)
    expect(result.source).toBe('fal/tripo3d/tripo/v2.5/text-to-3d')
    const [submit, ...rest] = fal.received
    expect(submit).toMatchObject({ method: 'POST', url: '/tripo3d/tripo/v2.5/text-to-3d' })
    expect(submit!.headers.authorization).toBe('Key test-fal-key')
    expect(JSON.parse(submit!.body)).toEqual({ prompt, seed: 3 })
    expect(rest.map((r) => r.url)).toEqual([
      '/tripo3d/tripo/requests/req-1/status',
      '/tripo3d/tripo/requests/req-1/status',
      '/tripo3d/tripo/requests/req-1/status',
      '/tripo3d/tripo/requests/req-1',
    ])
    expect(fal.received.every((r) => !r.url.includes('teapot'))).toBe(true)
    expect(statuses).toEqual([
      'waiting in the provider queue (position 2)',
      'generating',
      'downloading the model',
    ])
  })

  it('image-to-3D sends the image inline as a data URI in the configured field', async () => {
    fal.received.length = 0
    const image = png(8, 8)
    await falImageTo3dProvider(config(), 'fal-ai/trellis', 'image_url', download).generateFromImage(
      { image, mimeType: 'image/png' },
      call,
    )
    expect(JSON.parse(fal.received[0]!.body)).toEqual({
      image_url: `data:image/png;base64,${image.toString('base64')}`,
    })
  })

  it('text-to-image: image_size and PNG output; a flagged image is a refusal', async () => {
    fal.received.length = 0
    const provider = falImageProvider(config(), 'fal-ai/flux/schnell', download)
    const result = await provider.generateImage(
      { prompt, width: 1024, height: 1536, transparentBackground: false, seed: 9 },
      call,
    )
    expect(Buffer.from(result.file.bytes)).toEqual(png(64, 64))
    expect(JSON.parse(fal.received[0]!.body)).toMatchObject({
      prompt,
      image_size: { width: 1024, height: 1536 },
      output_format: 'png',
      seed: 9,
      num_images: 1,
    })
    fal.nextResult.push({
      status: 200,
      body: { images: [{ url: 'https://127.0.0.1/never' }], has_nsfw_concepts: [true] },
    })
    expect(
      (
        await failureOf(
          provider.generateImage({ prompt, width: 1024, height: 1024, transparentBackground: false }, call),
        )
      ).kind,
    ).toBe('refused')
  })

  it('submit 429 is rate_limited with Retry-After; 422 content_policy_violation is refused; 401 fails', async () => {
    const provider = falTextTo3dProvider(config(), 'tripo3d/tripo/v2.5/text-to-3d', download)
    const run = () => provider.generateFromText({ description: prompt }, call)
    fal.nextSubmit.push({
      status: 429,
      body: { detail: 'Too many concurrent requests' },
      headers: { 'retry-after': '12' },
    })
    expect(await failureOf(run())).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 12 })
    fal.nextSubmit.push({
      status: 422,
      body: { detail: [{ loc: ['body', 'prompt'], msg: 'flagged', type: 'content_policy_violation' }] },
    })
    expect((await failureOf(run())).kind).toBe('refused')
    const wrongKey = falTextTo3dProvider(
      { ...config(), key: 'wrong' },
      'tripo3d/tripo/v2.5/text-to-3d',
      download,
    )
    expect(await failureOf(wrongKey.generateFromText({ description: prompt }, call))).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/credentials/),
    })
  })

  it('a request that dies while running fails, both when the status says so and when the result is an error', async () => {
    const provider = falTextTo3dProvider(config(), 'tripo3d/tripo/v2.5/text-to-3d', download)
    fal.failWhileRunning = 1
    expect(await failureOf(provider.generateFromText({ description: prompt }, call))).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/while it ran/),
    })
    fal.nextResult.push({ status: 500, body: { detail: 'Internal error while processing the request' } })
    expect(await failureOf(provider.generateFromText({ description: prompt }, call))).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/failed while it ran/),
    })
  })

  it('result URLs go through the SSRF guard: without the test allowance a loopback URL is refused', async () => {
    const guarded = falTextTo3dProvider(config(), 'tripo3d/tripo/v2.5/text-to-3d', {
      maxBytes: 10_000_000,
      timeoutMs: 5_000,
    })
    const error = await failureOf(guarded.generateFromText({ description: prompt }, call))
    expect(error.kind).toBe('failed')
    expect(error.message).toMatch(/could not be downloaded.*(not allowed|Port)/)
  })
})
