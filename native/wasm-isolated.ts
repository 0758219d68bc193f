// Runs a WASM build of a napi-rs binding (native/build-wasm.ts) in a worker thread of its own.
// wasm32 cannot unwind, so a Rust panic there (a bug met on a hostile file, which the native build
// catches and answers as a failure value) aborts the instance, and @napi-rs/wasm-runtime rethrows
// the abort on the thread that loaded the binding: loaded on the main thread, it ends the process.
// Here it ends the host worker. Each call that was in flight then runs again alone in a fresh host:
// the one that ends that host too is answered with the binding's own failure value (`crashed`),
// the others with their results. Only the binding's async methods are reachable through here.
import { Worker } from 'node:worker_threads'

interface Call {
  method: string
  args: unknown[]
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  /** Whether this call is the only one its host was given (a rerun after a crash). */
  alone: boolean
}

interface Reply {
  id: number
  value?: unknown
  error?: unknown
}

/** Structured clone hands byte arrays back as plain Uint8Arrays; callers expect Buffers. */
function withBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  if (Array.isArray(value)) return value.map(withBuffers)
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBuffers(v)]))
  return value
}

/** The process's Node options, less those that name the main script's source (`node -e`), which a worker given a file refuses. */
function workerExecArgv(): string[] {
  const kept: string[] = []
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i] ?? ''
    if (['-e', '--eval', '-p', '--print', '--input-type'].includes(arg)) i++
    else if (!/^--(eval|print|input-type)=/.test(arg)) kept.push(arg)
  }
  return kept
}

class Host {
  readonly #worker: Worker
  readonly #calls = new Map<number, Call>()
  #nextId = 0
  #ended = false

  constructor(loaderPath: string, onEnd: (host: Host, orphans: Call[]) => void) {
    this.#worker = new Worker(new URL('./wasm-host.ts', import.meta.url), {
      workerData: { loaderPath },
      execArgv: workerExecArgv(),
    })
    this.#worker.unref()
    let started = false
    this.#worker.on('message', (reply: Reply | 'ready') => {
      if (reply === 'ready') {
        started = true
        return
      }
      const call = this.#calls.get(reply.id)
      if (!call) return
      this.#settled(reply.id)
      if (reply.error === undefined) call.resolve(withBuffers(reply.value))
      else call.reject(reply.error)
    })
    const end = (error?: unknown) => {
      if (this.#ended) return
      this.#ended = true
      const orphans = [...this.#calls.values()]
      this.#calls.clear()
      // A host that never loaded the binding says nothing about the calls: they fail as errors.
      if (!started) {
        const reason = error instanceof Error ? error.message : 'the worker exited'
        for (const call of orphans)
          call.reject(new Error(`The WASM build ${loaderPath} did not load: ${reason}`))
        onEnd(this, [])
      } else onEnd(this, orphans)
    }
    // An abort arrives as an uncaught error, then the exit; either one ends the host.
    this.#worker.on('error', end)
    this.#worker.on('exit', () => end())
  }

  send(call: Call): void {
    const id = this.#nextId++
    this.#calls.set(id, call)
    if (this.#calls.size === 1) this.#worker.ref()
    this.#worker.postMessage({ id, method: call.method, args: call.args })
  }

  close(): void {
    void this.#worker.terminate()
  }

  #settled(id: number): void {
    this.#calls.delete(id)
    if (this.#calls.size === 0) this.#worker.unref()
  }
}

/**
 * The binding at `loaderPath` (a napi-rs `*.wasi.cjs`), each of `methods` forwarded to a host
 * worker; `crashed(method)` is the answer to a call that ends its host on its own.
 */
export function isolatedWasmBinding<T extends object>(
  loaderPath: string,
  methods: readonly (keyof T & string)[],
  crashed: (method: string) => unknown,
): T {
  let shared: Host | undefined
  const onEnd = (host: Host, orphans: Call[]) => {
    if (host === shared) shared = undefined
    for (const call of orphans) {
      if (call.alone) call.resolve(crashed(call.method))
      else runAlone({ ...call, alone: true })
    }
  }
  const runAlone = (call: Call) => {
    const host = new Host(loaderPath, onEnd)
    const settle =
      (settle: (value: unknown) => void) =>
      (value: unknown): void => {
        host.close()
        settle(value)
      }
    host.send({ ...call, resolve: settle(call.resolve), reject: settle(call.reject) })
  }
  const binding: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
  for (const method of methods)
    binding[method] = (...args) =>
      new Promise((resolve, reject) => {
        // onEnd forgets a shared host that ended, so a call never goes to a dead one.
        shared ??= new Host(loaderPath, onEnd)
        shared.send({ method, args, resolve, reject, alone: false })
      })
  return binding as T
}
