// The isolated process for one job: boot, say it is ready, wait for its single job, measure the input,
// wait for the go-ahead (the charge), run, exit. It may wait idle in the warm pool for a while first.
// Anything thrown becomes a job error; a crash or a kill is reported by the parent.
import { randomBytes } from 'node:crypto'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { ToolId } from '../../domain/tools/catalog.ts'
import { runnerModules } from '../tools/registry.ts'
import type { ChildMessage, ParentMessage } from './protocol.ts'

const send = (message: ChildMessage) =>
  new Promise<void>((resolve) => {
    process.send!(message, () => resolve())
  })

/** A bug's text (paths, errno, stack) goes to stderr, which the worker keeps; the job says only that it failed. */
function toJobError(error: unknown) {
  if (isDomainError(error)) return { code: error.code, message: error.message, hint: error.hint }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  return {
    code: 'internal',
    message: 'The tool failed unexpectedly.',
    hint: 'Retry later; failed jobs cost nothing.',
  }
}

const nextMessage = () =>
  new Promise<ParentMessage>((resolve) => process.once('message', (m) => resolve(m as ParentMessage)))

async function main() {
  // Never outlive the worker: a lost IPC channel (the worker died) ends this process, idle or busy.
  process.once('disconnect', () => process.exit(0))
  const ready = send({ type: 'ready' })
  const job = await nextMessage()
  const received = send({ type: 'received' })
  await Promise.all([ready, received])
  if (job.type !== 'measure') throw new Error('expected a measure message first')
  // The runner sees the worker's environment as it is now, not as it was when this child was warmed
  // (providers, test hooks and fakes are configured through it).
  for (const key of Object.keys(process.env)) if (!(key in job.env)) delete process.env[key]
  Object.assign(process.env, job.env)
  const controller = new AbortController()
  process.once('SIGTERM', () => controller.abort())
  try {
    const modulePath = runnerModules[job.tool as ToolId]
    if (!modulePath) throw new DomainError('invalid_request', `No runner for ${job.tool}`)
    // Test hook, out of API callers' reach: the lifecycle tests put a misbehaving runner (one that
    // overruns its memory or time, or fails after the charge) in place of every tool's runner.
    const testRunner = process.env.KILN_TEST_RUNNER_MODULE
    const moduleUrl = testRunner
      ? new URL(testRunner, 'file:///').href
      : new URL(`../tools/${modulePath.slice(2)}`, import.meta.url).href
    const { runner } = (await import(moduleUrl)) as { runner: ToolRunner }
    const { units, extraUnits = 0 } = await runner.measure(job.input, job.options)
    await send({ type: 'measured', units, extraUnits })
    const go = await nextMessage()
    if (go.type !== 'run') return
    const { summary, extraUnitsSkipped = 0 } = await runner.run(job.input, job.options, {
      outDir: job.outDir,
      signal: controller.signal,
      randomBytes: (size) => randomBytes(size),
      progress: (fraction, message) => {
        process.send!({ type: 'progress', fraction, message: message ?? null } satisfies ChildMessage)
      },
    })
    await send({ type: 'done', summary, extraUnitsSkipped })
  } catch (error) {
    await send({ type: 'failed', error: toJobError(error) })
  }
  process.disconnect()
}

await main()
