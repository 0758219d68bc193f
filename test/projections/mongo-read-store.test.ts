// The read-store contract against a real MongoDB-wire server (see support/mongo-server.ts). In CI
// a missing server is a failure, not a skip.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { MongoReadStore } from '../../projections/mongo-read-store.ts'
import { peerReady } from '../support/peers.ts'
import { findFerretDb, type MongoServer, startMongoServer } from './support/mongo-server.ts'
import { readStoreContract } from './support/read-store-contract.ts'

const missing =
  !process.env.MONGODB_URL &&
  findFerretDb() === null &&
  'no MONGODB_URL and no ferretdb binary (FERRETDB_BIN, PATH, $(go env GOPATH)/bin)'

if (!peerReady('MongoDB read-store suite', missing)) {
  const reason = `SKIPPED: ${missing}`
  describe('MongoDB read store', () => {
    it.skip(reason, () => {})
  })
} else {
  let server: MongoServer
  let databases = 0
  beforeAll(async () => {
    const started = await startMongoServer()
    if (!started) throw new Error('MongoDB server vanished between discovery and start')
    server = started
    console.info(`MongoDB read-store suite runs against ${server.description}`)
  })
  afterAll(async () => {
    await server?.stop()
  })

  readStoreContract('MongoDB', async () => {
    databases += 1
    const reads = await MongoReadStore.connect(server.url, `kiln_test_${process.pid}_${databases}`)
    return {
      reads,
      close: async () => {
        await reads.dropDatabase()
        await reads.close()
      },
    }
  })
}
