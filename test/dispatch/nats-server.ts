// A real nats-server for the dispatch tests: Debian's package with JetStream on, on a free loopback port
// and a scratch store; or the server NATS_URL points at.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect as connectTcp, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'

export interface NatsServer {
  url: string
  /** Stops and starts the server on the same port and store; undefined for a server given by NATS_URL. */
  restart?: () => Promise<void>
  stop(): Promise<void>
}

const serverBinary = '/usr/sbin/nats-server'

/** Why the NATS suites cannot run here, or undefined when they can. */
export function natsUnavailableReason(): string | undefined {
  if (process.env.NATS_URL || existsSync(serverBinary)) return undefined
  return `NATS_URL is not set and ${serverBinary} is not installed (apt-get install nats-server)`
}

export async function startNatsServer(): Promise<NatsServer> {
  const external = process.env.NATS_URL
  if (external) return { url: external, stop: async () => {} }

  const storeDir = await mkdtemp(join(tmpdir(), 'kiln-nats-'))
  const port = await freePort()
  let child = await launch(storeDir, port)
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async () => {
      await terminate(child)
      child = await launch(storeDir, port)
    },
    stop: async () => {
      await terminate(child)
      await rm(storeDir, { recursive: true, force: true })
    },
  }
}

async function launch(storeDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(serverBinary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString()
  })
  try {
    await waitUntilAccepting(port, child)
    return child
  } catch (error) {
    await terminate(child)
    throw new Error(`nats-server did not start: ${(error as Error).message}\n${log}`)
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

async function waitUntilAccepting(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`)
    if (await accepts(port)) return
    await delay(50)
  }
  throw new Error('no connection accepted within 10 s')
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}
