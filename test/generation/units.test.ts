// The small pieces: the capacity decider, image header sizes, grounding at unit size, and the
// rate-limit wait before a provider has accepted anything.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { capacityDecider } from '../../app/generation/capacity.ts'
import { throttledJobError, throttleSecondsOf } from '../../domain/capacity/provider-throttle.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolContext } from '../../domain/ports/tool-runner.ts'
import { callProvider } from '../../workers/generation/call-provider.ts'
import { groundAtUnitSize } from '../../workers/generation/ground-glb.ts'
import { imageInfo } from '../../workers/generation/image-size.ts'
import { ProviderError } from '../../workers/providers/port.ts'
import { specFor } from '../support/given-when-then.ts'
import { corpusDir } from '../support/service.ts'
import { png } from './fakes.ts'

const noon = Date.parse('2030-01-01T12:00:00Z')
const capacity = specFor(capacityDecider)
const reserved = (jobId: string, at = '2030-01-01T11:00:00.000Z') => ({
  type: 'CapacityReserved' as const,
  data: { jobId, tool: 'create_image', at },
})
const atNoon = new Date(noon).toISOString()

describe('daily generation capacity', () => {
  it('reserves while below the limit, refuses at it until midnight UTC, and ignores a repeated reservation', () => {
    capacity([reserved('j1')])
      .when({
        type: 'ReserveCapacity',
        data: { jobId: 'j2', tool: 'create_image', dailyLimit: 2, now: noon },
      })
      .then([reserved('j2', atNoon)])
    const error = capacity([reserved('j1'), reserved('j2')])
      .when({
        type: 'ReserveCapacity',
        data: { jobId: 'j3', tool: 'create_image', dailyLimit: 2, now: noon },
      })
      .thenError('capacity_exhausted')
    expect(error.retryAfterSeconds).toBe(12 * 3600)
    capacity([reserved('j1')])
      .when({
        type: 'ReserveCapacity',
        data: { jobId: 'j1', tool: 'create_image', dailyLimit: 1, now: noon },
      })
      .thenNothing()
    capacity([reserved('j1'), reserved('j2')])
      .when({
        type: 'ReserveCapacity',
        data: { jobId: 'j3', tool: 'create_image', dailyLimit: null, now: noon },
      })
      .then([reserved('j3', atNoon)])
  })

  it('a released reservation frees its unit; releasing twice or releasing the unknown changes nothing', () => {
    const released = {
      type: 'CapacityReleased' as const,
      data: { jobId: 'j1', at: '2030-01-01T11:00:01.000Z' },
    }
    capacity([reserved('j1')])
      .when({ type: 'ReleaseCapacity', data: { jobId: 'j1', now: noon } })
      .then([{ type: 'CapacityReleased', data: { jobId: 'j1', at: atNoon } }])
    capacity([reserved('j1'), released])
      .when({ type: 'ReleaseCapacity', data: { jobId: 'j1', now: noon } })
      .thenNothing()
    capacity([])
      .when({ type: 'ReleaseCapacity', data: { jobId: 'j9', now: noon } })
      .thenNothing()
    capacity([reserved('j1'), released])
      .when({
        type: 'ReserveCapacity',
        data: { jobId: 'j2', tool: 'create_image', dailyLimit: 1, now: noon },
      })
      .then([reserved('j2', atNoon)])
  })

  it('a throttled job error carries its Retry-After for admission; other errors carry none', () => {
    expect(throttleSecondsOf(throttledJobError('openai', 42))).toBe(42)
    expect(throttleSecondsOf({ code: 'upstream_failed', message: 'x', hint: 'Retry after 42 s' })).toBeNull()
  })
})

describe('image sizes from headers', () => {
  it('PNG', () => {
    expect(imageInfo(png(300, 200))).toEqual({
      format: 'png',
      mimeType: 'image/png',
      width: 300,
      height: 200,
    })
  })

  it('JPEG: skips APP segments to the start of frame', () => {
    const app0 = [0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]
    const sof2 = [0xff, 0xc2, 0x00, 0x11, 8, 0x17, 0x70, 0x13, 0x88, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
    expect(imageInfo(Uint8Array.from([0xff, 0xd8, ...app0, ...sof2, 0xff, 0xd9]))).toEqual({
      format: 'jpeg',
      mimeType: 'image/jpeg',
      width: 5000,
      height: 6000,
    })
  })

  it('WebP lossy, lossless and extended', () => {
    const riff = (chunk: string, payload: number[]) =>
      Uint8Array.from([
        ...Buffer.from('RIFF'),
        0,
        0,
        0,
        0,
        ...Buffer.from('WEBP'),
        ...Buffer.from(chunk),
        0,
        0,
        0,
        0,
        ...payload,
        ...new Array(16).fill(0),
      ])
    const vp8 = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01])
    expect(imageInfo(vp8)).toMatchObject({ format: 'webp', width: 640, height: 480 })
    const bits = (640 - 1) | ((480 - 1) << 14)
    const vp8l = riff('VP8L', [
      0x2f,
      bits & 0xff,
      (bits >> 8) & 0xff,
      (bits >> 16) & 0xff,
      (bits >>> 24) & 0xff,
    ])
    expect(imageInfo(vp8l)).toMatchObject({ width: 640, height: 480 })
    const vp8x = riff('VP8X', [0, 0, 0, 0, 0x87, 0x13, 0x00, 0x6f, 0x17, 0x00])
    expect(imageInfo(vp8x)).toMatchObject({ width: 5000, height: 6000 })
  })

  it('anything else is unknown', () => {
    expect(imageInfo(Buffer.from('GIF89a........................'))).toBeNull()
  })
})

describe('grounding a GLB at unit size', () => {
  it('the Khronos box (under a rotating root) ends centred, resting on y = 0, with its largest extent 1', () => {
    const box = readFileSync(join(corpusDir, 'glb', 'Box.glb'))
    const grounded = groundAtUnitSize(box)!
    expect(grounded.scale).toBeCloseTo(1, 5)
    const json = JSON.parse(
      Buffer.from(
        grounded.glb.subarray(20, 20 + new DataView(grounded.glb.buffer).getUint32(12, true)),
      ).toString(),
    ) as { nodes: { translation?: number[] }[]; scenes: { nodes: number[] }[] }
    const root = json.nodes[json.scenes[0]!.nodes[0]!]!
    expect(root.translation![1]).toBeCloseTo(0.5, 5)
    expect(Buffer.from(grounded.glb.subarray(-8))).toEqual(box.subarray(-8))
  })
})

describe('waiting out a provider rate limit', () => {
  const context = (messages: string[]): ToolContext => ({
    outDir: '',
    signal: new AbortController().signal,
    progress: (_f, m) => messages.push(m ?? ''),
    randomBytes: () => new Uint8Array(),
  })

  it('retries after Retry-After within the budget, then gives up with rate_limited and the delay in the hint', async () => {
    const messages: string[] = []
    let calls = 0
    const result = await callProvider(
      context(messages),
      { rateLimitBudgetMs: 1000, fraction: 0.5 },
      async () => {
        if (++calls === 1) throw new ProviderError('rate_limited', 'openai', 'limited', 1)
        return 'image'
      },
    )
    expect([result, calls]).toEqual(['image', 2])
    expect(messages).toEqual(['the provider is limiting requests; trying again in 1 s'])
    const error = await callProvider(context([]), { rateLimitBudgetMs: 0, fraction: 0.5 }, async () => {
      throw new ProviderError('rate_limited', 'openai', 'limited', 7)
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DomainError)
    expect(error).toMatchObject({ code: 'rate_limited', hint: 'Retry after 7 s with a new idempotency key.' })
  })
})
