// A real service for end-to-end tests: its own data folder, the embedded stores, a real port.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { type AppOptions, buildApp } from '../../api/app.ts'
import { createApiKey, grantCredits, issueConsoleToken, openAccount } from '../../app/accounts.ts'
import { type Config, loadConfig } from '../../app/config.ts'
import { type Services, startServices } from '../../app/services.ts'

export interface TestService {
  services: Services
  app: FastifyInstance
  baseUrl: string
  /** Opens an account with credits and returns its API key and console token. */
  account(options?: { credits?: number; login?: string }): Promise<TestAccount>
  close(): Promise<void>
}

export interface TestAccount {
  accountId: string
  apiKey: string
  consoleToken: string
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

export async function startTestService(
  overrides: Partial<Config> = {},
  { consumeJobs = true, ...appOptions }: { consumeJobs?: boolean } & Omit<AppOptions, 'services'> = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-e2e-'))
  const config: Config = {
    ...loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    signingSecret: 'test-signing-secret-of-at-least-32-bytes',
    // Every test client shares one loopback address: the per-address limits are lifted unless a
    // test sets them (test/api/rate-limits.e2e.test.ts does).
    addressRateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    authFailureLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    ...overrides,
    dataDir,
  }
  const services = await startServices(config, { consumeJobs })
  const app = await buildApp({ services, ...appOptions })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  services.ctx.config.publicUrl = baseUrl

  return {
    services,
    app,
    baseUrl,
    async account({ credits = 100, login = 'tester' } = {}) {
      const { accountId } = await openAccount(services.ctx, {
        login,
        email: `${login}@example.com`,
        credits: 0,
      })
      if (credits > 0) await grantCredits(services.ctx, accountId, { credits, kind: 'adjustment' })
      const key = await createApiKey(services.ctx, accountId, 'test')
      const consoleToken = await issueConsoleToken(services.ctx, accountId)
      await services.waitForPosition(Math.max(key.position, consoleToken.position))
      const apiKey = key.key
      return {
        accountId,
        apiKey,
        consoleToken: consoleToken.token,
        request(path, { json, token = apiKey, headers, ...init } = {}) {
          const h = new Headers(headers)
          if (token) h.set('authorization', `Bearer ${token}`)
          if (json !== undefined) h.set('content-type', 'application/json')
          return fetch(`${baseUrl}${path}`, {
            ...init,
            headers: h,
            body: json !== undefined ? JSON.stringify(json) : init.body,
          })
        },
      }
    },
    async close() {
      await app.close()
      await services.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Polls a job until it is final. */
export async function waitForJob(
  account: TestAccount,
  jobId: string,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const job = (await (await account.request(`/v1/jobs/${jobId}`)).json()) as Record<string, unknown>
    if (job.status !== 'queued' && job.status !== 'running') return job
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${String(job.status)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export { corpusDir } from './peers.ts'
