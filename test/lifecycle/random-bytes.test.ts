// get_random_bytes end to end: the bytes are a secret. They never reach the event store or the blob
// folder in the clear, a sealed result opens only with the caller's private key, and after 5 minutes
// (time injected into the running service) they are gone.
import { generateKeyPairSync } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openSealed, rawPublicKey, type SealedEnvelope } from '../../workers/secrets/seal.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { type JobView, pollUntil, startJob } from './support/jobs.ts'

const fiveMinutes = 5 * 60_000

async function everyFile(dir: string): Promise<Buffer[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  // The sweeper may delete a file between the listing and the read: a file gone by then is not on disk.
  const contents = await Promise.all(
    entries
      .filter((e) => e.isFile())
      .map((e) =>
        readFile(join(e.parentPath, e.name)).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return null
          throw error
        }),
      ),
  )
  return contents.filter((content) => content !== null)
}

describe('get_random_bytes keeps its bytes secret', () => {
  let service: TestService
  let account: TestAccount
  let dataDir: string

  beforeAll(async () => {
    service = await startTestService({
      maxActiveJobsPerAccount: 10,
      rateLimit: { perSecond: 1000, burst: 1000 },
    })
    dataDir = service.services.ctx.config.dataDir
  })
  afterAll(() => service?.close())
  // A fresh key per test: the rate limiter's buckets do not expect the clock to jump back after the purge test.
  beforeEach(async () => {
    account = await service.account({ credits: 0, login: 'secrets' })
  })

  const finished = async (options: Record<string, unknown>) =>
    (await waitForJob(
      account,
      (
        await startJob(account, 'get_random_bytes', options)
      ).id,
    )) as unknown as JobView
  const download = async (job: JobView) => {
    const response = await fetch(job.result!.files[0]!.url)
    expect(response.status).toBe(200)
    return (await response.json()) as Record<string, unknown>
  }
  /** The SQLite files (WAL included), read models and blobs: nothing on disk may hold the plaintext. */
  async function expectNowhereOnDisk(secret: Buffer) {
    await service.services.ctx.store.headPosition()
    const needles = [secret, Buffer.from(secret.toString('hex')), Buffer.from(secret.toString('base64'))]
    const files = await everyFile(dataDir)
    expect(files.length).toBeGreaterThan(3)
    for (const file of files) for (const needle of needles) expect(file.includes(needle)).toBe(false)
  }

  it('serves the bytes from an encrypted secret output, never from the result, for 5 minutes, then purges them', async () => {
    const job = await finished({ length: 32, encoding: 'hex', label: 'db password' })
    expect(job).toMatchObject({
      status: 'succeeded',
      credits_charged: 0,
      result: { length: 32, label: 'db password', sealed: null },
    })
    expect(job.result).not.toHaveProperty('bytes')
    expect(job.result!.files.map((f) => f.name)).toEqual(['secret/random_bytes.json'])

    const content = await download(job)
    expect(content).toMatchObject({ encoding: 'hex', label: 'db password', length: 32 })
    const secret = Buffer.from(content.bytes as string, 'hex')
    expect(secret).toHaveLength(32)
    await expectNowhereOnDisk(secret)

    const chunk = await account.request(`/v1/jobs/${job.id}/files/secret/random_bytes.json`)
    expect(chunk.status).toBe(200)
    expect(((await chunk.json()) as { text: string }).text).toContain(content.bytes as string)

    const realNow = service.services.ctx.now
    service.services.ctx.now = () => realNow() + fiveMinutes + 1000
    try {
      // Its download URL was signed to end with the outputs; the chunk reader answers not found.
      expect((await fetch(job.result!.files[0]!.url)).status).toBe(403)
      expect((await account.request(`/v1/jobs/${job.id}/files/secret/random_bytes.json`)).status).toBe(404)
      // The sweeper expires the job and deletes its files on its next pass.
      const expired = await pollUntil(
        async () => (await (await account.request(`/v1/jobs/${job.id}`)).json()) as JobView,
        (j) => j.status === 'expired',
        10_000,
      )
      expect(expired.result?.files).toEqual([])
      await pollUntil(
        () => everyFile(join(dataDir, 'blobs', 'jobs', job.id)),
        (files) => files.length === 0,
      )
      expect((await account.request(`/v1/jobs/${job.id}/files/secret/random_bytes.json`)).status).toBe(404)
    } finally {
      service.services.ctx.now = realNow
    }
  })

  it('seals the bytes to an X25519 public key: they open with the private key and the label only', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('x25519')
    const recipient = rawPublicKey(publicKey).toString('base64')
    const job = await finished({ length: 64, label: 'wallet seed', recipient_public_key: recipient })
    expect(job).toMatchObject({
      status: 'succeeded',
      result: { sealed: { format: 'x25519-hkdf-sha256-aes256gcm-v1', recipient_public_key: recipient } },
    })

    const content = await download(job)
    expect(content).not.toHaveProperty('bytes')
    const envelope = content.sealed as SealedEnvelope
    const secret = openSealed(envelope, privateKey, 'wallet seed')
    expect(secret).toHaveLength(64)
    expect(() => openSealed(envelope, privateKey, 'another label')).toThrow()
    expect(() => openSealed(envelope, generateKeyPairSync('x25519').privateKey, 'wallet seed')).toThrow()
    await expectNowhereOnDisk(secret)
  })

  it('refuses an unusable public key (a low-order point) before any work', async () => {
    const job = await finished({ length: 8, recipient_public_key: Buffer.alloc(32).toString('base64') })
    expect(job).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'invalid_options' } })
  })
})
