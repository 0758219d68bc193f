// Children for isolated jobs, started ahead of time. Booting Node and loading TypeScript costs a few
// hundred milliseconds, so the pool keeps a few children booted and idle; each still runs exactly one
// job and exits, and a replacement starts as soon as one is taken. Idle children are unref'd (they
// never hold the worker open), die with the worker (the child exits when its IPC channel closes) and
// are killed by close(), as is any child handed out that has not exited yet.
//
// The V8 heap cap (--max-old-space-size) is fixed when a process starts, so a warm child belongs to
// one memory limit. The pool starts with children of one limit and then follows demand: a job whose
// limit has no warm child runs in a cold child, and the limit with the most idle children gives up
// its oldest (never its last) to make room for a warm child of the job's limit.
import { type ChildProcess, fork } from 'node:child_process'
import type { ChildMessage } from './protocol.ts'

const childScript = new URL('./child.ts', import.meta.url)
/** A child that dies before it has booted is not restarted at once, so a broken build cannot spin. */
const bootFailureBackoffMs = 1000

export interface ChildSource {
  /** A started child process with a heap cap of `memoryMb`, owned by the caller from now on. */
  take(memoryMb: number): ChildProcess
}

export function forkJobChild(memoryMb: number): ChildProcess {
  return fork(childScript, [], {
    execArgv: [`--max-old-space-size=${memoryMb}`],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    serialization: 'advanced',
  })
}

/** No pool: every job pays for a fresh child's start-up. */
export const coldChildren: ChildSource = { take: forkJobChild }

interface IdleChild {
  process: ChildProcess
  memoryMb: number
  ready: boolean
  release(): void
}

const isAlive = (child: ChildProcess) =>
  child.exitCode === null && child.signalCode === null && child.connected

function setReferenced(child: ChildProcess, referenced: boolean) {
  const handles = [child, child.channel, child.stderr] as (
    | { ref(): void; unref(): void }
    | null
    | undefined
  )[]
  for (const handle of handles) {
    if (referenced) handle?.ref()
    else handle?.unref()
  }
}

function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    return Promise.resolve()
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGKILL')
  return exited
}

export class WarmChildPool implements ChildSource {
  readonly #size: number
  readonly #idle: IdleChild[] = []
  readonly #handedOut = new Set<ChildProcess>()
  readonly #restarts = new Set<NodeJS.Timeout>()
  #closed = false

  /** `size` idle children, all with a heap cap of `memoryMb` to begin with. */
  constructor(size: number, memoryMb: number) {
    this.#size = size
    for (let i = 0; i < size; i++) this.#warm(memoryMb)
  }

  /** The idle children, for tests and diagnostics. */
  idleChildren(): { pid: number; memoryMb: number; ready: boolean }[] {
    return this.#idle.flatMap(({ process, memoryMb, ready }) =>
      process.pid === undefined ? [] : [{ pid: process.pid, memoryMb, ready }],
    )
  }

  take(memoryMb: number): ChildProcess {
    const child = this.#takeIdle(memoryMb) ?? this.#forkCold(memoryMb)
    this.#handedOut.add(child)
    child.once('exit', () => this.#handedOut.delete(child))
    return child
  }

  /** Kills every idle child and any handed-out child still running, and waits for them to exit. */
  async close(): Promise<void> {
    this.#closed = true
    for (const timer of this.#restarts) clearTimeout(timer)
    this.#restarts.clear()
    const exits = [...this.#idle.map((idle) => this.#kill(idle)), ...[...this.#handedOut].map(killAndWait)]
    this.#idle.length = 0
    this.#handedOut.clear()
    await Promise.all(exits)
  }

  #takeIdle(memoryMb: number): ChildProcess | null {
    const index = this.#pick(memoryMb)
    if (index < 0) return null
    const [idle] = this.#idle.splice(index, 1)
    idle!.release()
    this.#warm(memoryMb)
    return idle!.process
  }

  #forkCold(memoryMb: number): ChildProcess {
    if (this.#size > 0 && !this.#closed) {
      if (this.#idle.length < this.#size) this.#warm(memoryMb)
      else if (this.#retireOneOfMostPlentiful()) this.#warm(memoryMb)
    }
    return forkJobChild(memoryMb)
  }

  /** A booted child of this limit first, then one still booting (it is further along than a fork). */
  #pick(memoryMb: number): number {
    const usable = (idle: IdleChild) => idle.memoryMb === memoryMb && isAlive(idle.process)
    const ready = this.#idle.findIndex((idle) => idle.ready && usable(idle))
    return ready >= 0 ? ready : this.#idle.findIndex(usable)
  }

  #retireOneOfMostPlentiful(): boolean {
    const counts = new Map<number, number>()
    for (const { memoryMb } of this.#idle) counts.set(memoryMb, (counts.get(memoryMb) ?? 0) + 1)
    const [plentiful, count] = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0])
    if (count < 2) return false
    const [idle] = this.#idle.splice(
      this.#idle.findIndex((i) => i.memoryMb === plentiful),
      1,
    )
    void this.#kill(idle!)
    return true
  }

  #kill(idle: IdleChild): Promise<void> {
    idle.release()
    idle.process.on('error', () => {})
    return killAndWait(idle.process)
  }

  #warm(memoryMb: number) {
    if (this.#closed) return
    const child = forkJobChild(memoryMb)
    setReferenced(child, false)
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'ready') idle.ready = true
    }
    // Died while idle: forget it, so it is never handed a job, and start another in its place.
    const onExit = () => {
      const index = this.#idle.indexOf(idle)
      if (index < 0) return
      this.#idle.splice(index, 1)
      if (this.#closed) return
      if (idle.ready) return this.#warm(memoryMb)
      const timer = setTimeout(() => {
        this.#restarts.delete(timer)
        this.#warm(memoryMb)
      }, bootFailureBackoffMs)
      timer.unref()
      this.#restarts.add(timer)
    }
    const idle: IdleChild = {
      process: child,
      memoryMb,
      ready: false,
      release: () => {
        child.off('message', onMessage)
        child.off('exit', onExit)
        child.off('error', onExit)
        setReferenced(child, true)
      },
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
    // A failed fork emits 'error' and possibly no 'exit'; treat both the same.
    child.on('error', onExit)
    this.#idle.push(idle)
  }
}
