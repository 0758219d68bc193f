// Starts stripe-mock (Stripe's official API mock, `go install github.com/stripe/stripe-mock@latest`)
// on a free loopback port, or returns null when it is not installed.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'

function findBinary(): string | null {
  const candidates = [
    process.env.STRIPE_MOCK_BIN,
    join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin', 'stripe-mock'),
    '/usr/local/bin/stripe-mock',
  ]
  return candidates.find((path): path is string => !!path && existsSync(path)) ?? null
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export async function startStripeMock(): Promise<{ url: string; stop(): Promise<void> } | null> {
  const binary = findBinary()
  if (!binary) return null
  const port = await freePort()
  const child: ChildProcess = spawn(binary, ['-http-addr', `127.0.0.1:${port}`], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      await fetch(`${url}/v1/customers`, { headers: { authorization: 'Bearer sk_test_123' } })
      break
    } catch {
      if (Date.now() > deadline) throw new Error('stripe-mock did not start')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    },
  }
}
