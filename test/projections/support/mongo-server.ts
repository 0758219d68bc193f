// A MongoDB-wire server for the Mongo suites: MONGODB_URL when set, otherwise a FerretDB v1
// (SQLite backend) started on a free loopback port in a temporary directory. The binary comes from
// FERRETDB_BIN, PATH, or `$(go env GOPATH)/bin`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { MongoClient } from 'mongodb'

export interface MongoServer {
  url: string
  description: string
  stop(): Promise<void>
}

export function goBinDir(): string | null {
  try {
    return join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin')
  } catch {
    return existsSync(join(homedir(), 'go', 'bin')) ? join(homedir(), 'go', 'bin') : null
  }
}

/** A Go-installed tool: the path in `envVar` when set, else on PATH, else in $(go env GOPATH)/bin. */
export function findGoTool(name: string, envVar: string): string | null {
  const fromEnv = process.env[envVar]
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean)
  const goBin = goBinDir()
  if (goBin) dirs.push(goBin)
  for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name)
  return null
}

export const findFerretDb = () => findGoTool('ferretdb', 'FERRETDB_BIN')

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

async function waitUntilServing(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ferretdb exited with ${child.exitCode}:\n${output()}`)
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 500 })
    try {
      await client.db('admin').command({ ping: 1 })
      return
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`ferretdb did not answer on ${url}: ${String(error)}\n${output()}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.close()
    }
  }
}

/** A running server, or null when there is none to use (no MONGODB_URL, no ferretdb binary). */
export async function startMongoServer(): Promise<MongoServer | null> {
  const url = process.env.MONGODB_URL
  if (url) return { url, description: `MongoDB at MONGODB_URL`, stop: async () => {} }
  const binary = findFerretDb()
  if (!binary) return null
  const dir = mkdtempSync(join(tmpdir(), 'kiln-ferretdb-'))
  const port = await freePort()
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      // A throw-away test database: WAL commits without an fsync each (FerretDB writes one
      // transaction per updated document, and the cluster test writes thousands).
      `--sqlite-url=file:${dir}/?_pragma=synchronous(normal)`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      process.env.KILN_FERRETDB_DEBUG_ADDR
        ? `--debug-addr=${process.env.KILN_FERRETDB_DEBUG_ADDR}`
        : '--debug-addr=-',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const serverUrl = `mongodb://127.0.0.1:${port}/`
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      // FerretDB can linger in its graceful shutdown; the data is throw-away.
      const kill = setTimeout(() => child.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(kill)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitUntilServing(serverUrl, child, () => output)
  } catch (error) {
    await stop()
    throw error
  }
  return { url: serverUrl, description: `FerretDB (${binary}) on port ${port}`, stop }
}
