// The embedded service as an OS process of its own (fixtures/service-process.ts), for fault tests
// that SIGKILL it and start it again on the same data folder.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const serviceScript = fileURLToPath(new URL('../fixtures/service-process.ts', import.meta.url))

/** Starts the service process and resolves once it says it is ready. */
export async function startServiceProcess(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [serviceScript], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  if (line !== 'ready') throw new Error(`service process said ${line}`)
  return child
}

/** SIGKILLs the process, if it is still running, and waits for it to be gone. */
export async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  await exited
}
