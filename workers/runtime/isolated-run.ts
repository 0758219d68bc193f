// Runs one job's work in a child process with a wall-clock limit and a memory limit. The child is
// killed (SIGKILL) when it overruns either; its death never takes this process down. The V8 heap is
// capped with --max-old-space-size; native memory is watched through the child's resident set size.
// The child may come warm from a pool: the limits and the compute time count from the hand-over.
import type { ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import type { JobError } from '../../domain/errors.ts'
import type { ToolInputFile } from '../../domain/ports/tool-runner.ts'
import type { ChildMessage, ParentMessage } from './protocol.ts'
import { type ChildSource, coldChildren } from './warm-pool.ts'

export interface IsolatedJob {
  tool: string
  input: ToolInputFile | null
  options: Record<string, unknown>
  outDir: string
  timeoutMs: number
  memoryMb: number
  /** Where the child process comes from: a warm pool, or a fresh fork (the default). */
  children?: ChildSource
  /** Decides whether to go on after measuring (the charge); returning an error stops the job. */
  afterMeasure(units: number, extraUnits: number): Promise<JobError | null>
  onProgress(fraction: number, message: string | null): void
}

export type IsolatedOutcome =
  | {
      ok: true
      units: number
      summary: Record<string, unknown>
      extraUnitsSkipped: number
      computeMs: number
    }
  | { ok: false; units: number | null; error: JobError; computeMs: number }

async function residentMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /VmRSS:\s+(\d+) kB/.exec(status)
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

function currentEnvironment(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  return env
}

/** What Rust's standard library prints before it aborts on an allocation it could not make. */
const nativeAllocationFailure = /memory allocation of (\d+) bytes failed/

const megabytes = (bytes: number) => Math.ceil(bytes / 2 ** 20).toLocaleString('en-US')

export async function runIsolated(job: IsolatedJob): Promise<IsolatedOutcome> {
  const started = performance.now()
  const children = job.children ?? coldChildren
  const outcome = await runInChild(job, children.take(job.memoryMb), started, true)
  // The child died before it received the job (a warm child whose death the pool had not heard of
  // yet): nothing of the job ran, so it runs in another child instead, once.
  return outcome === 'lost' ? runInChild(job, children.take(job.memoryMb), started, false) : outcome
}

function runInChild(
  job: IsolatedJob,
  child: ChildProcess,
  started: number,
  mayBeLost: true,
): Promise<IsolatedOutcome | 'lost'>
function runInChild(
  job: IsolatedJob,
  child: ChildProcess,
  started: number,
  mayBeLost: false,
): Promise<IsolatedOutcome>
function runInChild(
  job: IsolatedJob,
  child: ChildProcess,
  started: number,
  mayBeLost: boolean,
): Promise<IsolatedOutcome | 'lost'> {
  let stderrTail = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4000)
  })

  return new Promise<IsolatedOutcome | 'lost'>((resolve) => {
    let units: number | null = null
    let received = false
    let settled = false
    let killedFor: 'timeout' | 'out_of_memory' | null = null
    const elapsed = () => Math.round(performance.now() - started)
    const finish = (outcome: IsolatedOutcome | 'lost') => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearInterval(memoryWatch)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      resolve(outcome)
    }
    const fail = (error: JobError) =>
      finish(
        mayBeLost && !received && killedFor === null
          ? 'lost'
          : { ok: false, units, error, computeMs: elapsed() },
      )

    const timer = setTimeout(() => {
      killedFor = 'timeout'
      child.kill('SIGKILL')
    }, job.timeoutMs)
    const memoryWatch = setInterval(async () => {
      if (child.pid && (await residentMb(child.pid)) > job.memoryMb * 1.5) {
        killedFor = 'out_of_memory'
        child.kill('SIGKILL')
      }
    }, 100)

    child.on('message', async (raw) => {
      const message = raw as ChildMessage
      switch (message.type) {
        case 'measured': {
          units = message.units
          const refusal = await job
            .afterMeasure(message.units, message.extraUnits ?? 0)
            .catch((error: unknown) => ({
              code: 'internal',
              message: `Could not charge the job: ${String(error)}`,
              hint: 'Retry later; nothing was charged.',
            }))
          if (refusal) return fail(refusal)
          child.send({ type: 'run' } satisfies ParentMessage)
          return
        }
        case 'ready':
          return
        case 'received':
          received = true
          return
        case 'progress':
          job.onProgress(message.fraction, message.message)
          return
        case 'done':
          return finish({
            ok: true,
            units: units ?? 0,
            summary: message.summary,
            extraUnitsSkipped: message.extraUnitsSkipped,
            computeMs: elapsed(),
          })
        case 'failed':
          return fail(message.error)
      }
    })

    // 'close', not 'exit': 'exit' can come before the child's last IPC message has been read, and a
    // job that finished would be reported as a crash. 'close' waits for every stdio channel, IPC too.
    child.on('close', (code, signal) => {
      if (settled) return
      if (killedFor === 'timeout') {
        return fail({
          code: 'timeout',
          message: `The job did not finish within ${Math.round(job.timeoutMs / 1000)} s.`,
          hint: 'Try a smaller input or lighter options.',
        })
      }
      // A native core (Rust) that cannot get memory aborts, saying how much it asked for at once.
      const refused = nativeAllocationFailure.exec(stderrTail)
      if (refused) {
        return fail({
          code: 'out_of_memory',
          message: `The job asked for ${megabytes(Number(refused[1]))} MB of memory at once; it has ${job.memoryMb} MB.`,
          hint: 'A file of ordinary size that asks for this much is damaged (its data declares sizes it does not hold): export it again. Otherwise try a smaller input.',
        })
      }
      if (killedFor === 'out_of_memory' || /heap out of memory|Allocation failed/i.test(stderrTail)) {
        return fail({
          code: 'out_of_memory',
          message: `The job needed more than ${job.memoryMb} MB of memory.`,
          hint: 'Try a smaller input.',
        })
      }
      fail({
        code: 'internal',
        message: `The tool process ended unexpectedly (${signal ?? `exit code ${code}`}).`,
        hint: 'Retry later; failed jobs cost nothing.',
      })
    })
    child.on('error', (error) =>
      fail({ code: 'internal', message: `Could not start the tool process: ${error.message}`, hint: null }),
    )
    child.send({
      type: 'measure',
      tool: job.tool,
      input: job.input,
      options: job.options,
      outDir: job.outDir,
      env: currentEnvironment(),
    } satisfies ParentMessage)
  })
}
