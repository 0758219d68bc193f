// One owner per duty, and takeover when it dies: two service processes share one data folder; the
// first to start holds the projector and housekeeper leases; SIGKILL it and the other takes both over
// within a lease time, then projects and runs what arrives after. A third handle, which holds no
// lease, still reads its own writes by waiting for the stored checkpoints.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grantCredits, openAccount } from '../../../app/accounts.ts'
import { loadConfig } from '../../../app/config.ts'
import { createJob } from '../../../app/jobs/create-job.ts'
import { type Services, startServices } from '../../../app/services.ts'
import { audit } from '../../../projections/audit.ts'
import { jobsCollection, jobsModel } from '../../../projections/jobs/job-doc.ts'
import { pollUntil } from '../support/jobs.ts'
import { kill, startServiceProcess } from '../support/service-process.ts'

const leaseTtlMs = 1500

describe('duties under a lease', () => {
  let dataDir: string
  let env: NodeJS.ProcessEnv
  let control: Services
  let first: ChildProcess | undefined
  let second: ChildProcess | undefined
  let leases: DatabaseSync

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kiln-lease-'))
    env = {
      ...process.env,
      DATA_DIR: dataDir,
      SIGNING_SECRET: 'lease-test-signing-secret-0123456789',
      LEASE_TTL_MS: String(leaseTtlMs),
      MAX_ACTIVE_JOBS: '100',
      WORKER_CONCURRENCY: '1',
      WORKER_WARM_CHILDREN: '0',
      NATS_URL: '',
    }
    first = await startServiceProcess(env)
    second = await startServiceProcess(env)
    // The test's own handle: it appends and reads, and holds no duty.
    control = await startServices(loadConfig(env), { consumeJobs: false, project: false })
    leases = new DatabaseSync(join(dataDir, 'read.db'), { readOnly: true })
  })
  afterAll(async () => {
    leases?.close()
    await kill(first)
    await kill(second)
    await control?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const holders = () =>
    Object.fromEntries(
      (leases.prepare('SELECT name, holder FROM leases').all() as { name: string; holder: string }[]).map(
        (row) => [row.name, Number(row.holder.split(':')[1])],
      ),
    )

  async function runJob(accountId: string, key: string) {
    const { jobId, position } = await createJob(control.ctx, {
      accountId,
      tool: 'get_random_numbers',
      options: { count: 3 },
      input: { kind: 'none' },
      idempotencyKey: key,
    })
    // Read-your-writes without holding the projector lease.
    expect(await control.waitForPosition(position, 10_000)).toBe(true)
    const job = await control.models.collection(jobsModel, jobsCollection).then((jobs) => jobs.get(jobId))
    expect(job).not.toBeNull()
    return jobId
  }

  it('the first process holds both duties; the other takes them over within a lease time after a SIGKILL', async () => {
    expect(holders()).toEqual({ projector: first!.pid, housekeeper: first!.pid, webhooks: first!.pid })
    expect(control.duties).toEqual([])

    const { accountId } = await openAccount(control.ctx, { login: 'lease', email: null, credits: 0 })
    await grantCredits(control.ctx, accountId, { credits: 100, kind: 'pack' })
    await runJob(accountId, 'before')

    const killedAt = Date.now()
    await kill(first)
    const taken = await pollUntil(
      async () => holders(),
      (now) =>
        now.projector === second!.pid && now.housekeeper === second!.pid && now.webhooks === second!.pid,
      leaseTtlMs * 6,
    )
    const failoverMs = Date.now() - killedAt
    console.log(`[lease] both duties taken over ${failoverMs} ms after the SIGKILL (lease ${leaseTtlMs} ms)`)
    expect(taken).toEqual({ projector: second!.pid, housekeeper: second!.pid, webhooks: second!.pid })
    // Lease time plus one claim interval, with room for a loaded machine.
    expect(failoverMs).toBeLessThan(leaseTtlMs * 4)

    // The survivor projects and runs what arrives after the takeover.
    const jobId = await runJob(accountId, 'after')
    const jobs = await control.models.collection<{ id: string; status: string; position: number }>(
      jobsModel,
      jobsCollection,
    )
    await pollUntil(
      async () => (await jobs.get(jobId))?.status,
      (status) => status === 'succeeded',
      20_000,
    )
    expect((await audit(control.ctx.store)).violations).toEqual([])
  })
})
