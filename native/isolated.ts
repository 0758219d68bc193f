// A binding run out of harm's way: in a host of its own (a worker thread, wasm-isolated.ts, or a
// child process, process-isolated.ts) that a crash inside the binding ends without ending this
// process. Each call that was in flight when a host ended runs again alone in a fresh host: the one
// that ends that host too is answered with the binding's own failure value (`crashed`), the others
// with their results. A host that ends before its binding loaded fails its calls as errors, so a
// broken build is never reported as a bad input. A call may have a time limit: one that outlives
// it is answered as over the limit and its host is ended, so work without end stops there (the
// other calls in that host run again). Only the binding's async methods are reachable.

/** How a host is reached: messages to it, and what it answers. */
export interface Channel {
  post(message: Request): void
  /** Whether the channel keeps this process alive (only while calls wait on it). */
  hold(held: boolean): void
  close(): void
}

export interface Request {
  id: number
  method: string
  args: unknown[]
}

/** What a host says: 'ready' once its binding loaded, then one reply per request. */
export type HostMessage = 'ready' | { id: number; value?: unknown; error?: unknown }

/** What a channel tells its host: each message, and its end (with the error, where one ended it). */
export interface ChannelEvents {
  message(message: HostMessage): void
  end(error?: unknown): void
}

/** Opens a channel to a fresh host of the binding. */
export type OpenChannel = (events: ChannelEvents) => Channel

/** A kind of host for one build: how to open one, and the build's name for errors. */
export interface HostKind {
  open: OpenChannel
  describe: string
}

interface Call {
  method: string
  args: unknown[]
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  /** Whether this call is the only one its host was given (a rerun after a crash). */
  alone: boolean
}

/** How long a call may take, and the answer to one that takes longer. */
export interface TimeLimit {
  ms: number
  overrun: (method: string) => unknown
}

/** Structured clone hands byte arrays back as plain Uint8Arrays; callers expect Buffers. */
function withBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array && !Buffer.isBuffer(value))
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  if (Array.isArray(value)) return value.map(withBuffers)
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBuffers(v)]))
  return value
}

/** The process's Node options, less those that name the main script's source (`node -e`), which a host given a file refuses. */
export function hostExecArgv(): string[] {
  const kept: string[] = []
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i] ?? ''
    if (['-e', '--eval', '-p', '--print', '--input-type'].includes(arg)) i++
    else if (!/^--(eval|print|input-type)=/.test(arg)) kept.push(arg)
  }
  return kept
}

class Host {
  readonly #channel: Channel
  readonly #calls = new Map<number, Call>()
  readonly #timers = new Map<number, NodeJS.Timeout>()
  readonly #limit: TimeLimit | undefined
  readonly #onEnd: (host: Host, orphans: Call[]) => void
  #nextId = 0
  #ended = false

  constructor(
    open: OpenChannel,
    describe: string,
    limit: TimeLimit | undefined,
    onEnd: (host: Host, orphans: Call[]) => void,
  ) {
    this.#limit = limit
    this.#onEnd = onEnd
    let started = false
    this.#channel = open({
      message: (reply) => {
        if (reply === 'ready') {
          started = true
          return
        }
        const call = this.#calls.get(reply.id)
        if (!call) return
        this.#settled(reply.id)
        if (reply.error === undefined) call.resolve(withBuffers(reply.value))
        else call.reject(reply.error)
      },
      end: (error) => {
        if (this.#ended) return
        if (!started) {
          const reason = error instanceof Error ? error.message : 'the host exited'
          for (const call of this.#orphaned()) call.reject(new Error(`${describe} did not load: ${reason}`))
          onEnd(this, [])
        } else this.#end()
      },
    })
    this.#channel.hold(false)
  }

  /** Ends the host: its calls in flight go to `onEnd` as orphans. */
  #end(): void {
    this.#onEnd(this, this.#orphaned())
  }

  /** Marks the host ended and hands over its calls in flight. */
  #orphaned(): Call[] {
    this.#ended = true
    const orphans = [...this.#calls.values()]
    for (const id of [...this.#calls.keys()]) this.#settled(id)
    return orphans
  }

  send(call: Call): void {
    const id = this.#nextId++
    this.#calls.set(id, call)
    if (this.#calls.size === 1) this.#channel.hold(true)
    const limit = this.#limit
    if (limit)
      this.#timers.set(
        id,
        setTimeout(() => this.#overran(id, limit), limit.ms),
      )
    this.#channel.post({ id, method: call.method, args: call.args })
  }

  /** A call past its time: answered as such, and its host ended (the calls beside it run again). */
  #overran(id: number, limit: TimeLimit): void {
    const call = this.#calls.get(id)
    if (!call) return
    this.#settled(id)
    call.resolve(limit.overrun(call.method))
    // Ended now, not at the process's exit: the calls stuck beside it start again at once, each
    // with its own time, and no new call comes here.
    this.#end()
    this.close()
  }

  close(): void {
    this.#channel.close()
  }

  #settled(id: number): void {
    clearTimeout(this.#timers.get(id))
    this.#timers.delete(id)
    this.#calls.delete(id)
    if (this.#calls.size === 0) this.#channel.hold(false)
  }
}

/**
 * A binding whose `methods` run in hosts of `kind`; `crashed(method)` is the answer to a call that
 * ends its host on its own, and `limit` (if any) how long a call may take.
 */
export function isolatedBinding<T extends object>(
  { open, describe }: HostKind,
  methods: readonly (keyof T & string)[],
  crashed: (method: string) => unknown,
  limit?: TimeLimit,
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
    const host = new Host(open, describe, limit, onEnd)
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
        shared ??= new Host(open, describe, limit, onEnd)
        shared.send({ method, args, resolve, reject, alone: false })
      })
  return binding as T
}
