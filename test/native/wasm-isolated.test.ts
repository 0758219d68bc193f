// The host worker of a WASM build (native/wasm-isolated.ts), driven with stand-in loaders: a call
// that ends its worker the way a wasm32 abort does (an uncaught error on the worker's thread) gets
// the binding's failure value, calls in flight beside it get their own answers, and the binding
// keeps serving. The real WASM builds meet a real abort in test/mesh/wasm-parity.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isolatedWasmBinding } from '../../native/wasm-isolated.ts'

interface StandIn {
  echo(input: Buffer, delayMs: number): Promise<{ bytes: Buffer; length: number; threadId: number }>
  fail(message: string): Promise<never>
}

const loader = join(mkdtempSync(join(tmpdir(), 'kiln-wasm-host-')), 'stand-in.wasi.cjs')
writeFileSync(
  loader,
  `const { threadId } = require('node:worker_threads')
exports.echo = (input, delayMs) => new Promise((resolve) => {
  // An input that starts with 0xFF aborts, as a panic in a wasm32 build does: an error thrown on
  // the thread, never an answer.
  if (input[0] === 0xff) setTimeout(() => { throw new Error('unreachable') }, delayMs)
  else setTimeout(() => resolve({ bytes: Buffer.from(input).reverse(), length: input.length, threadId }), delayMs)
})
exports.fail = async (message) => { throw new Error(message) }
`,
)

const binding = () =>
  isolatedWasmBinding<StandIn>(loader, ['echo', 'fail'], (method) => ({ crashed: method }))

describe('a WASM build in a worker of its own', () => {
  it('answers from another thread, with Buffers', async () => {
    const answer = await binding().echo(Buffer.from([1, 2, 3]), 0)
    expect(Buffer.isBuffer(answer.bytes)).toBe(true)
    expect([...answer.bytes]).toEqual([3, 2, 1])
    expect(answer.threadId).toBeGreaterThan(0)
  })

  it('passes an error the binding throws to the caller', async () => {
    await expect(binding().fail('no such page')).rejects.toThrow('no such page')
  })

  it('answers the call that aborts with the failure value, and the calls beside it with theirs', async () => {
    const b = binding()
    const results = await Promise.all([
      b.echo(Buffer.from([1]), 200),
      b.echo(Buffer.from([0xff]), 20),
      b.echo(Buffer.from([2, 3]), 200),
    ])
    expect(results[1]).toEqual({ crashed: 'echo' })
    expect(results[0]).toMatchObject({ length: 1 })
    expect(results[2]).toMatchObject({ length: 2 })
    // Each sound call ran again, alone, in a host of its own; then a fresh shared host serves.
    const next = await b.echo(Buffer.from([4]), 0)
    expect(next.length).toBe(1)
    expect(
      new Set([results[0], results[2], next].map((r) => (r as { threadId: number }).threadId)).size,
    ).toBe(3)
  })

  it('serves one abort after another', async () => {
    const b = binding()
    for (let i = 0; i < 3; i++) expect(await b.echo(Buffer.from([0xff]), 0)).toEqual({ crashed: 'echo' })
    expect((await b.echo(Buffer.from([7, 7]), 0)).length).toBe(2)
  })

  it('fails calls as errors, not as failure values, when the build does not load', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'kiln-wasm-host-')), 'broken.wasi.cjs')
    writeFileSync(broken, "throw new Error('no wasm32 build here')\n")
    const b = isolatedWasmBinding<StandIn>(broken, ['echo'], (method) => ({ crashed: method }))
    await expect(b.echo(Buffer.from([1]), 0)).rejects.toThrow(/did not load: no wasm32 build here/)
  })
})
