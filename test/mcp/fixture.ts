// A real kiln API on a loopback port for MCP tests: embedded services in a temp data folder, a
// Fastify app with only the MCP plugin, and an account with credits and an API key.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { buildApp } from '../../api/app.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { createApiKey, grantCredits, openAccount } from '../../app/accounts.ts'
import { loadConfig } from '../../app/config.ts'
import { type Services, startServices } from '../../app/services.ts'

export interface McpTestServer {
  baseUrl: string
  services: Services
  /** Opens an account with this many credits and returns its API key; `purchased` lifts the lower pre-purchase quotas. */
  account(credits: number, options?: { purchased?: boolean }): Promise<{ accountId: string; key: string }>
  close(): Promise<void>
}

/** The public URL must be known before the services start (signed URLs use it), so the port is picked first. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

export interface McpTestServerOptions {
  env?: Record<string, string>
  /** How long a tool call waits for its job. */
  waitMs?: number
  /** false: jobs stay queued, for tests of what happens while a job is active. */
  consumeJobs?: boolean
  /** Mount MCP in the full REST app (uploads, downloads) instead of a bare Fastify instance. */
  withRest?: boolean
}

export async function startMcpTestServer({
  env = {},
  waitMs = 5000,
  consumeJobs = true,
  withRest = false,
}: McpTestServerOptions = {}): Promise<McpTestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kiln-mcp-'))
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    SIGNUP_CREDITS: '0',
    WORKER_CONCURRENCY: '2',
    // Every test client is on loopback, one address: the per-address limits are lifted unless a
    // test sets them (test/api/rate-limits.e2e.test.ts covers them).
    ADDRESS_RATE_LIMIT_PER_SECOND: '1000000',
    ADDRESS_RATE_LIMIT_BURST: '1000000',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    AUTH_FAILURE_BURST: '1000000',
    ...env,
  })
  const services = await startServices(config, { consumeJobs })
  const mount = (instance: FastifyInstance) => registerMcp(instance, services, { waitMs })
  let app: FastifyInstance
  if (withRest) app = await buildApp({ services, plugins: [mount] })
  else {
    app = Fastify()
    await mount(app)
  }
  await app.listen({ port, host: '127.0.0.1' })

  return {
    baseUrl,
    services,
    async account(credits, { purchased = false } = {}) {
      const { accountId } = await openAccount(services.ctx, {
        login: `agent-${Math.random().toString(36).slice(2)}`,
        email: null,
      })
      if (credits > 0)
        await grantCredits(services.ctx, accountId, { credits, kind: purchased ? 'pack' : 'adjustment' })
      const { key, position } = await createApiKey(services.ctx, accountId, 'mcp-test')
      await services.waitForPosition(position)
      return { accountId, key }
    },
    async close() {
      await app.close()
      await services.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
