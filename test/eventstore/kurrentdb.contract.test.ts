// The event-store contract on the KurrentDB adapter: against the server KURRENTDB_URL names when set,
// otherwise against the in-repository server that speaks KurrentDB's gRPC protocol
// (kurrentdb-test-server.ts), since no KurrentDB server can be installed on these machines.
import { afterAll, beforeAll } from 'vitest'
import { KurrentDbEventStore } from '../../adapters/eventstore/kurrentdb.ts'
import { eventStoreContract } from './contract.ts'
import { KurrentDbTestServer } from './kurrentdb-test-server.ts'

const url = process.env.KURRENTDB_URL

if (url) {
  // Atomic multi-stream append needs KurrentDB 25.1 or later; say so with KURRENTDB_MULTI_STREAM=1.
  eventStoreContract('KurrentDB', async () => new KurrentDbEventStore(url), {
    atomicAcrossStreams: process.env.KURRENTDB_MULTI_STREAM === '1',
  })
} else {
  const server = new KurrentDbTestServer()
  beforeAll(() => server.start())
  afterAll(() => server.stop())
  eventStoreContract(
    'KurrentDB adapter over its gRPC protocol (test server)',
    async () => new KurrentDbEventStore(server.connectionString),
    // The test server is a 24.10: no multi-stream append, so the adapter's sequential fallback runs.
    { atomicAcrossStreams: false },
  )
}
