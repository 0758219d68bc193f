// The whole service on S3 blobs (versitygw): an upload PUT through a signed URL lands in the bucket,
// a mesh job reads its input from there (workers copy it down), its outputs go back to the bucket,
// chunked text reads are ranged GETs, signed downloads stream from the bucket, and a secret output is
// ciphertext in the bucket. Nothing is written under DATA_DIR/blobs.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'
import { findVersitygw, type S3Server, startS3Server } from './versitygw-server.ts'

/** A unit cube as OBJ: 8 vertices, 12 triangles. */
function cubeObj(): string {
  const v = [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 1],
    [1, 1, 1],
    [0, 1, 1],
  ]
  const quads = [
    [1, 2, 3, 4],
    [5, 8, 7, 6],
    [1, 5, 6, 2],
    [2, 6, 7, 3],
    [3, 7, 8, 4],
    [4, 8, 5, 1],
  ]
  const lines = v.map(([x, y, z]) => `v ${x} ${y} ${z}`)
  for (const [a, b, c, d] of quads) lines.push(`f ${a} ${b} ${c}`, `f ${a} ${c} ${d}`)
  return `${lines.join('\n')}\n`
}

interface Job {
  id: string
  status: string
  error: unknown
  result: { files: { name: string; bytes: number; url: string }[]; face_count?: number } | null
}

const missing = !findVersitygw() && 'no versitygw binary (VERSITYGW_BIN, PATH, $(go env GOPATH)/bin)'
if (!peerReady('S3 service suite', missing)) {
  const reason = `SKIPPED: ${missing}`
  describe('service on S3 blobs', () => {
    it.skip(reason, () => {})
  })
} else {
  describe('service on S3 blobs', () => {
    let s3: S3Server
    let service: TestService
    let ada: TestAccount
    let client: S3Client

    beforeAll(async () => {
      const started = await startS3Server('kiln-e2e')
      if (!started) throw new Error('versitygw vanished between discovery and start')
      s3 = started
      // The service's S3 client takes the standard AWS SDK settings from the environment.
      Object.assign(process.env, s3.env)
      service = await startTestService({
        blobsUrl: 's3://kiln-e2e/deploy-1',
        rateLimit: { perSecond: 1000, burst: 1000 },
      })
      ada = await service.account({ credits: 100, login: 'ada' })
      client = new S3Client({ endpoint: s3.endpoint, region: s3.env.AWS_REGION, forcePathStyle: true })
    })
    afterAll(async () => {
      client?.destroy()
      await service?.close()
      await s3?.stop()
    })

    const bucketKeys = async () =>
      ((await client.send(new ListObjectsV2Command({ Bucket: 'kiln-e2e' }))).Contents ?? []).map(
        (o) => o.Key!,
      )

    it('runs a mesh job from an upload and serves its outputs from the bucket', async () => {
      const created = (await (
        await ada.request('/v1/uploads', { method: 'POST', json: { filename: 'cube.obj' } })
      ).json()) as { upload_id: string; url: string }
      const body = cubeObj()
      expect((await fetch(created.url, { method: 'PUT', body })).status).toBe(200)
      expect((await bucketKeys()).some((key) => key.startsWith('deploy-1/uploads/'))).toBe(true)

      const started = (await (
        await ada.request('/v1/tools/inspect_3d_model/jobs', {
          method: 'POST',
          json: { upload_id: created.upload_id },
        })
      ).json()) as Job
      const job = (await waitForJob(ada, started.id)) as unknown as Job
      expect(job.error).toBeNull()
      expect(job.status).toBe('succeeded')
      const keys = await bucketKeys()
      for (const file of job.result!.files) expect(keys).toContain(`deploy-1/jobs/${job.id}/out/${file.name}`)

      const summary = job.result!.files.find((f) => f.name === 'summary.txt')!
      const download = await fetch(summary.url)
      expect(download.status).toBe(200)
      const whole = await download.text()
      expect(Buffer.byteLength(whole)).toBe(summary.bytes)

      let offset = 0
      let rebuilt = ''
      for (;;) {
        const chunk = (await (
          await ada.request(`/v1/jobs/${job.id}/files/summary.txt?offset=${offset}&limit=16`)
        ).json()) as { text: string; next_offset: number; eof: boolean }
        rebuilt += chunk.text
        offset = chunk.next_offset
        if (chunk.eof) break
      }
      expect(rebuilt).toBe(whole)
      expect(existsSync(join(service.services.ctx.config.dataDir, 'blobs'))).toBe(false)
    })

    it('keeps a secret output encrypted in the bucket and readable through the API', async () => {
      const started = (await (
        await ada.request('/v1/tools/get_random_bytes/jobs', {
          method: 'POST',
          json: { options: { length: 32 } },
        })
      ).json()) as Job
      const job = (await waitForJob(ada, started.id)) as unknown as Job
      expect(job.status).toBe('succeeded')
      const secret = job.result!.files.find((f) => f.name.startsWith('secret/'))
      expect(secret).toBeDefined()
      const stored = await client.send(
        new GetObjectCommand({ Bucket: 'kiln-e2e', Key: `deploy-1/jobs/${job.id}/out/${secret!.name}` }),
      )
      const raw = Buffer.from(await stored.Body!.transformToByteArray())
      expect(raw.subarray(0, 8).toString()).toBe('KILNSEC1')
      const plain = await (await fetch(secret!.url)).text()
      expect(JSON.parse(plain)).toBeTruthy()
    })
  })
}
