// SIGKILL of the service while webhook deliveries are pending: the receiver is down, the jobs have
// finished and their deliveries are being retried when the process dies. After a restart on the same
// data folder, with the receiver back, every outcome is delivered and verified: exactly the expected
// set of message ids.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { grantCredits, openAccount } from '../../../app/accounts.ts'
import { loadConfig } from '../../../app/config.ts'
import { createJob } from '../../../app/jobs/create-job.ts'
import { type Services, startServices } from '../../../app/services.ts'
import { listDeliveries } from '../../../app/webhooks/deliveries.ts'
import { addWebhookEndpoint } from '../../../app/webhooks/endpoints.ts'
import { messageIdOf } from '../../../app/webhooks/messages.ts'
import { jobStream } from '../../../domain/job/events.ts'
import { type Receiver, startReceiver } from '../../webhooks/receiver.ts'
import { kill, startServiceProcess } from '../support/service-process.ts'

const jobCount = 5

describe('SIGKILL with webhook deliveries pending', () => {
  let dataDir: string
  let env: NodeJS.ProcessEnv
  let control: Services
  let receiver: Receiver
  let child: ChildProcess | undefined

  beforeAll(async () => {
    receiver = await startReceiver()
    dataDir = mkdtempSync(join(tmpdir(), 'kiln-webhooks-kill-'))
    const caFile = join(dataDir, 'receiver-ca.pem')
    writeFileSync(caFile, receiver.fixture.ca)
    env = {
      ...process.env,
      DATA_DIR: dataDir,
      SIGNING_SECRET: 'fault-test-signing-secret-0123456789',
      MAX_ACTIVE_JOBS: '100',
      NATS_URL: '',
      LOG_LEVEL: 'silent',
      // The restarted process takes the dead one's leases over within this.
      LEASE_TTL_MS: '1500',
      WEBHOOK_TEST_CA_FILE: caFile,
      WEBHOOK_TICK_MS: '50',
      // A hundredth of the real schedule: retries after 50 ms, 0.3 s, 1.2 s, 6 s, 18 s. At 0 % every
      // retry was due at once, a delivery used its 11 attempts in about half a second and turned
      // failed, so the five had to finish within that of each other (a loaded CI machine did not).
      // Here each delivery has failed a few times, and is due again within seconds, when the
      // process is killed.
      WEBHOOK_RETRY_SCALE_PERCENT: '1',
      WEBHOOK_DISABLE_AFTER_FAILURES: '100000',
    }
    // The test's own handle on the same store: it registers the endpoint and creates the jobs.
    control = await startServices(loadConfig(env), { consumeJobs: false, project: false })
  })
  afterAll(async () => {
    await kill(child)
    await control?.close()
    await receiver?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('delivers every outcome after a restart, exactly the expected set', async () => {
    const { accountId } = await openAccount(control.ctx, { login: 'hooks', email: null, credits: 0 })
    await grantCredits(control.ctx, accountId, { credits: 1000, kind: 'pack' })
    const { endpoint } = await addWebhookEndpoint(control.ctx, accountId, {
      url: receiver.url(),
      events: ['job.succeeded', 'job.failed'],
    })
    receiver.secret = endpoint.secret
    receiver.up = false

    child = await startServiceProcess(env)
    const jobIds: string[] = []
    for (let i = 0; i < jobCount; i++) {
      const { jobId } = await createJob(control.ctx, {
        accountId,
        tool: 'get_random_numbers',
        options: { count: 4 },
        input: { kind: 'none' },
        idempotencyKey: `hook-${i}`,
      })
      jobIds.push(jobId)
    }
    // Every delivery exists and has failed at least once: the process dies with all of them pending.
    await vi.waitFor(
      async () => {
        const log = await listDeliveries(control.models.store, endpoint.id)
        expect(log).toHaveLength(jobCount)
        for (const delivery of log) {
          expect(delivery.status).toBe('pending')
          expect(delivery.attempts).toBeGreaterThanOrEqual(1)
        }
      },
      { timeout: 30_000, interval: 100 },
    )
    await kill(child)
    expect(receiver.verified).toHaveLength(0)

    receiver.up = true
    child = await startServiceProcess(env)
    const expected: string[] = []
    for (const jobId of jobIds) {
      const outcome = (await control.ctx.store.readStream(jobStream(jobId))).find((event) =>
        ['JobSucceeded', 'JobFailed'].includes(event.type),
      )
      expected.push(messageIdOf(outcome!.id))
    }
    await vi.waitFor(
      async () => {
        for (const delivery of await listDeliveries(control.models.store, endpoint.id))
          expect(delivery.status).toBe('delivered')
      },
      { timeout: 30_000, interval: 100 },
    )
    expect([...new Set(receiver.verified.map((delivery) => delivery.id))].sort()).toEqual(expected.sort())
    expect(receiver.rejected).toBe(0)
  })
})
