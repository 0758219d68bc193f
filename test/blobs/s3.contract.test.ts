// The blob-store contract against a real S3 server (versitygw, see versitygw-server.ts). In CI a
// missing server is a failure, not a skip.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { S3BlobStore } from '../../adapters/blobs/s3.ts'
import { peerReady } from '../support/peers.ts'
import { blobStoreContract } from './blob-store-contract.ts'
import { findVersitygw, type S3Server, startS3Server } from './versitygw-server.ts'

const missing = !findVersitygw() && 'no versitygw binary (VERSITYGW_BIN, PATH, $(go env GOPATH)/bin)'
if (!peerReady('S3 blob-store suite', missing)) {
  const reason = `SKIPPED: ${missing}`
  describe('S3 blob store', () => {
    it.skip(reason, () => {})
  })
} else {
  let server: S3Server
  beforeAll(async () => {
    const started = await startS3Server()
    if (!started) throw new Error('versitygw vanished between discovery and start')
    server = started
  })
  afterAll(async () => {
    await server?.stop()
  })

  blobStoreContract('S3 (versitygw)', async () => {
    const blobs = new S3BlobStore(
      { bucket: server.bucket, prefix: 'contract' },
      {
        endpoint: server.env.AWS_ENDPOINT_URL_S3,
        region: server.env.AWS_REGION,
        credentials: {
          accessKeyId: server.env.AWS_ACCESS_KEY_ID!,
          secretAccessKey: server.env.AWS_SECRET_ACCESS_KEY!,
        },
      },
    )
    return { blobs, close: async () => blobs.close() }
  })
}
