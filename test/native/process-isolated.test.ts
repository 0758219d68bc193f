// A native binding's methods in a child process of their own (native/process-isolated.ts), driven
// with a stand-in module: a call that ends its process the way a stack overflow does (an abort, a
// signal, no answer) gets the binding's failure value, calls in flight beside it get their own
// answers, and the binding keeps serving. The real renderer meets a real overflow in
// test/pdf/render-isolated.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isolatedProcessBinding } from '../../native/process-isolated.ts'

interface StandIn {
  echo(input: Buffer, delayMs: number): Promise<{ bytes: Buffer; length: number; pid: number }>
  fail(message: string): Promise<never>
  spin(): Promise<never>
}

const module = join(mkdtempSync(join(tmpdir(), 'kiln-process-host-')), 'stand-in.cjs')
writeFileSync(
  module,
  `exports.echo = (input, delayMs) => new Promise((resolve) => {
  // An input that starts with 0xFF aborts the process, as a native stack overflow does.
  if (input[0] === 0xff) setTimeout(() => process.abort(), delayMs)
  else setTimeout(() => resolve({ bytes: Buffer.from(input).reverse(), length: input.length, pid: process.pid }), delayMs)
})
exports.fail = async (message) => { throw new Error(message) }
// Work without end, on the thread that would answer: only ending the process stops it.
exports.spin = () => new Promise(() => { for (;;) {} })
`,
)

const binding = () =>
  isolatedProcessBinding<StandIn>(module, ['echo', 'fail'], (method) => ({ crashed: method }))

describe('a native binding in a child process of its own', () => {
  it('answers from another process, with Buffers', async () => {
    const answer = await binding().echo(Buffer.from([1, 2, 3]), 0)
    expect(Buffer.isBuffer(answer.bytes)).toBe(true)
    expect([...answer.bytes]).toEqual([3, 2, 1])
    expect(answer.pid).not.toBe(process.pid)
  })

  it('passes an error the binding throws to the caller', async () => {
    await expect(binding().fail('no such page')).rejects.toThrow('no such page')
  })

  it('answers the call that aborts with the failure value, and the calls beside it with theirs', async () => {
    const b = binding()
    const results = await Promise.all([
      b.echo(Buffer.from([1]), 300),
      b.echo(Buffer.from([0xff]), 20),
      b.echo(Buffer.from([2, 3]), 300),
    ])
    expect(results[1]).toEqual({ crashed: 'echo' })
    expect(results[0]).toMatchObject({ length: 1 })
    expect(results[2]).toMatchObject({ length: 2 })
    // Each sound call ran again, alone, in a process of its own; then a fresh shared one serves.
    const next = await b.echo(Buffer.from([4]), 0)
    expect(next.length).toBe(1)
    expect(new Set([results[0], results[2], next].map((r) => (r as { pid: number }).pid)).size).toBe(3)
  })

  it('serves one abort after another', async () => {
    const b = binding()
    for (let i = 0; i < 3; i++) expect(await b.echo(Buffer.from([0xff]), 0)).toEqual({ crashed: 'echo' })
    expect((await b.echo(Buffer.from([7, 7]), 0)).length).toBe(2)
  })

  it('answers a call past its time limit as such and ends its process; the call beside it runs again', async () => {
    const b = isolatedProcessBinding<StandIn>(module, ['echo', 'spin'], (method) => ({ crashed: method }), {
      ms: 400,
      overrun: (method) => ({ overran: method }),
    })
    const started = Date.now()
    const [spun, beside] = await Promise.all([b.spin(), b.echo(Buffer.from([5, 6]), 100)])
    expect(spun).toEqual({ overran: 'spin' })
    // Stuck behind the spinning call, it ran again alone once that process was ended.
    expect(beside).toMatchObject({ length: 2 })
    expect(Date.now() - started).toBeLessThan(5000)
    expect((await b.echo(Buffer.from([1]), 0)).length).toBe(1)
  })

  it('fails calls as errors, not as failure values, when the binding does not load', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'kiln-process-host-')), 'broken.cjs')
    writeFileSync(broken, "throw new Error('no addon for this platform')\n")
    const b = isolatedProcessBinding<StandIn>(broken, ['echo'], (method) => ({ crashed: method }))
    await expect(b.echo(Buffer.from([1]), 0)).rejects.toThrow(/did not load: .*no addon for this platform/s)
  })
})
