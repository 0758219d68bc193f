// Bindings in hosts of their own (native/isolated.ts), over both kinds of host: a worker thread
// (wasm-isolated.ts, for the WASM builds) and a child process (process-isolated.ts, for the native
// OCR renderer). Driven with a stand-in module: a call that ends its host the way a crash does (in a
// worker, an error thrown on its thread, as a wasm32 abort is; in a process, an abort, as a stack
// overflow is) gets the binding's failure value, calls in flight beside it get their own answers,
// and the binding keeps serving. The real builds meet real crashes in test/mesh/wasm-parity.test.ts
// (a Draco file one bit off) and test/pdf/render-isolated.test.ts (a stack overflow, a page without end).
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type HostKind, isolatedBinding, type TimeLimit } from '../../native/isolated.ts'
import { childProcessHost } from '../../native/process-isolated.ts'
import { wasmWorkerHost } from '../../native/wasm-isolated.ts'

interface StandIn {
  echo(input: Buffer, delayMs: number): Promise<{ bytes: Buffer; length: number; host: string }>
  fail(message: string): Promise<never>
  spin(): Promise<never>
}

const folder = mkdtempSync(join(tmpdir(), 'kiln-isolated-'))
const standIn = join(folder, 'stand-in.cjs')
writeFileSync(
  standIn,
  `const { isMainThread, threadId } = require('node:worker_threads')
const host = process.pid + ':' + threadId
// An input that starts with 0xFF crashes the host: a process aborts, as on a native stack
// overflow; a worker gets an error thrown on its thread, as on a wasm32 abort.
const crash = () => (isMainThread ? process.abort() : setTimeout(() => { throw new Error('unreachable') }))
exports.echo = (input, delayMs) => new Promise((resolve) => {
  if (input[0] === 0xff) setTimeout(crash, delayMs)
  else setTimeout(() => resolve({ bytes: Buffer.from(input).reverse(), length: input.length, host }), delayMs)
})
exports.fail = async (message) => { throw new Error(message) }
// Work without end on the thread that would answer: only ending the host stops it.
exports.spin = () => new Promise(() => { for (;;) {} })
`,
)
// A binding whose work runs on a thread of its own that dies, and whose call is then never
// answered: emnapi loses a wasm pool thread's work that way when the thread traps before the host
// read its 'loaded' message (seen under load in CI: the call hung until the test's time ran out).
const pooled = join(folder, 'pooled.cjs')
writeFileSync(
  pooled,
  `const { Worker } = require('node:worker_threads')
// The error is handled (emnapi logs a failed load), so it does not end the host on its own.
exports.lose = () => new Promise(() => {
  new Worker('throw new Error("unreachable")', { eval: true }).on('error', () => {})
})
`,
)
// A binding that loads and dies on its thread at once, its messages (2,000 of them, then the
// host's 'ready') still on their way when the error is reported: a crash, not a failed load.
const diesAtOnce = join(folder, 'dies-at-once.cjs')
writeFileSync(
  diesAtOnce,
  `const { parentPort } = require('node:worker_threads')
for (let i = 0; i < 2000; i++) parentPort.postMessage({ note: 'x'.repeat(1000) })
setImmediate(() => { throw new Error('unreachable') })
exports.echo = () => new Promise(() => {})
`,
)
const broken = join(folder, 'broken.cjs')
writeFileSync(broken, "throw new Error('no build for this platform')\n")

const hosts: { kind: string; host: (path: string) => HostKind }[] = [
  { kind: 'a worker thread', host: wasmWorkerHost },
  { kind: 'a child process', host: childProcessHost },
]

describe.each(hosts)('a binding in $kind of its own', ({ host }) => {
  const open = (path: string, limit?: TimeLimit) =>
    isolatedBinding<StandIn>(host(path), ['echo', 'fail', 'spin'], (method) => ({ crashed: method }), limit)

  it('answers from another host, with Buffers', async () => {
    const answer = await open(standIn).echo(Buffer.from([1, 2, 3]), 0)
    expect(Buffer.isBuffer(answer.bytes)).toBe(true)
    expect([...answer.bytes]).toEqual([3, 2, 1])
    expect(answer.host).not.toBe(`${process.pid}:0`)
  })

  it('passes an error the binding throws to the caller', async () => {
    await expect(open(standIn).fail('no such page')).rejects.toThrow('no such page')
  })

  it('answers the call that crashes with the failure value, and the calls beside it with theirs', async () => {
    const b = open(standIn)
    const results = await Promise.all([
      b.echo(Buffer.from([1]), 300),
      b.echo(Buffer.from([0xff]), 20),
      b.echo(Buffer.from([2, 3]), 300),
    ])
    expect(results[1]).toEqual({ crashed: 'echo' })
    expect(results[0]).toMatchObject({ length: 1 })
    expect(results[2]).toMatchObject({ length: 2 })
    // Each sound call ran again, alone, in a host of its own; then a fresh shared host serves.
    const next = await b.echo(Buffer.from([4]), 0)
    expect(next.length).toBe(1)
    expect(new Set([results[0], results[2], next].map((r) => (r as { host: string }).host)).size).toBe(3)
  })

  it('serves one crash after another', async () => {
    const b = open(standIn)
    for (let i = 0; i < 3; i++) expect(await b.echo(Buffer.from([0xff]), 0)).toEqual({ crashed: 'echo' })
    expect((await b.echo(Buffer.from([7, 7]), 0)).length).toBe(2)
  })

  it('answers a call past its time limit as such and ends its host; the call beside it runs again', async () => {
    const b = open(standIn, { ms: 400, overrun: (method) => ({ overran: method }) })
    const started = Date.now()
    const [spun, beside] = await Promise.all([b.spin(), b.echo(Buffer.from([5, 6]), 100)])
    expect(spun).toEqual({ overran: 'spin' })
    // Stuck behind the spinning call, it ran again alone once that host was ended.
    expect(beside).toMatchObject({ length: 2 })
    expect(Date.now() - started).toBeLessThan(5000)
    expect((await b.echo(Buffer.from([1]), 0)).length).toBe(1)
  })

  it('fails calls as errors, not as failure values, when the binding does not load', async () => {
    await expect(open(broken).echo(Buffer.from([1]), 0)).rejects.toThrow(
      /did not load: .*no build for this platform/s,
    )
  })
})

describe('a binding in a worker thread of its own', () => {
  it('ends the host when a thread the binding started dies, and answers the call it lost', async () => {
    const b = isolatedBinding<{ lose(): Promise<never> }>(wasmWorkerHost(pooled), ['lose'], (method) => ({
      crashed: method,
    }))
    expect(await b.lose()).toEqual({ crashed: 'lose' })
  })

  it('counts a host that loaded and died at once as a crash, not as a build that did not load', async () => {
    // Node can report the thread's error before it delivers the messages the thread sent first;
    // the host ends at the exit, after them (seen in CI: "did not load: unreachable").
    const b = isolatedBinding<{ echo(): Promise<never> }>(wasmWorkerHost(diesAtOnce), ['echo'], (method) => ({
      crashed: method,
    }))
    for (let i = 0; i < 3; i++) expect(await b.echo()).toEqual({ crashed: 'echo' })
  })
})
