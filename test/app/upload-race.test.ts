// Two PUTs racing on one upload URL (issue 20 item 17): the first one recorded wins, and the one
// refused with already_uploaded leaves the stored file as it was, on the local folder and on S3.
import { createHash } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uploadDecider } from '../../app/deciders.ts'
import { readState } from '../../app/handle-command.ts'
import { createUpload, receiveUpload } from '../../app/uploads.ts'
import { uploadStream } from '../../domain/upload/events.ts'
import { findVersitygw, type S3Server, startS3Server } from '../blobs/versitygw-server.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestService } from '../support/service.ts'

const nothingStored = { pendingUploads: 0, nextPendingExpiry: null, storedBytes: 0 }
const noBytes = async () => 0
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

function raceOn(name: string, start: () => Promise<TestService>) {
  describe(`racing PUTs (${name})`, () => {
    let service: TestService
    beforeAll(async () => {
      service = await start()
    })
    afterAll(() => service?.close())

    it('keeps the first recorded file when a later-finishing PUT is refused', async () => {
      const { ctx } = service.services
      const { accountId } = await service.account({ login: 'racer' })
      const { uploadId } = await createUpload(ctx, accountId, 'model.obj', nothingStored)
      const first = Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')
      const second = Buffer.from('# the losing body, of another size and hash\n'.repeat(4))

      // The losing PUT starts first and is still streaming when the winner is recorded.
      const slow = new PassThrough()
      slow.write(second.subarray(0, 10))
      const losing = receiveUpload(ctx, uploadId, slow, second.length, noBytes)
      const won = await receiveUpload(ctx, uploadId, Readable.from([first]), first.length, noBytes)
      expect(won.state.received?.sha256).toBe(sha256(first))
      slow.end(second.subarray(10))
      await expect(losing).rejects.toMatchObject({ code: 'already_uploaded' })

      const { state } = await readState(ctx.store, uploadStream(uploadId), uploadDecider)
      const stored = await buffer(ctx.blobs.read(state.received!.blobKey))
      expect(sha256(stored)).toBe(state.received!.sha256)
      expect(stored.equals(first)).toBe(true)
    })
  })
}

raceOn('local folder', () => startTestService())

if (
  peerReady(
    'upload race on S3',
    !findVersitygw() && 'no versitygw binary (VERSITYGW_BIN, PATH, $(go env GOPATH)/bin)',
  )
) {
  let s3: S3Server
  raceOn('S3, versitygw', async () => {
    const started = await startS3Server('kiln-race')
    if (!started) throw new Error('versitygw vanished between discovery and start')
    s3 = started
    Object.assign(process.env, s3.env)
    return startTestService({ blobsUrl: 's3://kiln-race/race' })
  })
  afterAll(() => s3?.stop())
}
