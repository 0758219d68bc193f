// The OS processes of a cluster test: API instances (`npm start` with ROLES) and workers (`npm run
// worker`), each a real process on the shared stores, started, SIGKILLed and restarted by the test.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

export interface ClusterProcess {
  name: string
  readonly child: ChildProcess
  readonly alive: boolean
  /** Starts it again with the same environment (same port for an API instance). */
  restart(): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Waits until the instance serves (/health). Not /ready: that also says whether the cluster's read
 * models are within READY_MAX_LAG of the store, which under the test's load they may not be for a
 * while, and an instance serves requests before then.
 */
async function waitForServing(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${url}: the process exited (${child.exitCode ?? child.signalCode}) before it served`)
    try {
      if ((await fetch(`${url}/health`)).status === 200) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`${url} was not serving within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function managed(name: string, launch: () => Promise<ChildProcess>): Promise<ClusterProcess> {
  return (async () => {
    let child = await launch()
    const process_: ClusterProcess = {
      name,
      get child() {
        return child
      },
      get alive() {
        return child.exitCode === null && child.signalCode === null
      },
      async restart() {
        await process_.kill()
        child = await launch()
      },
      async kill(signal = 'SIGKILL') {
        if (!process_.alive) return
        const exited = once(child, 'exit')
        child.kill(signal)
        await exited
      },
    }
    return process_
  })()
}

export function startApi(name: string, port: number, env: NodeJS.ProcessEnv): Promise<ClusterProcess> {
  return managed(name, async () => {
    const child = spawn(process.execPath, [join(root, 'api', 'main.ts')], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}` },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    await waitForServing(`http://127.0.0.1:${port}`, child)
    return child
  })
}

export function startWorker(name: string, env: NodeJS.ProcessEnv): Promise<ClusterProcess> {
  return managed(name, async () => {
    const child = spawn(process.execPath, [join(root, 'workers', 'main.ts')], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    // The worker says it consumes once it has subscribed.
    const [line] = (await once(child.stdout!, 'data')) as [Buffer]
    if (!line.toString().includes('consuming')) throw new Error(`${name} said ${line.toString()}`)
    child.stdout!.resume()
    return child
  })
}
