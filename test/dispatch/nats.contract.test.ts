import { afterAll, beforeAll, describe, it } from 'vitest'
import { NatsDispatcher } from '../../workers/dispatch/nats.ts'
import { peerReady } from '../support/peers.ts'
import { dispatcherContract } from './contract.ts'
import { type NatsServer, natsUnavailableReason, startNatsServer } from './nats-server.ts'
import { deleteTestStreams, uniqueTopology } from './nats-test-topology.ts'

const unavailable = natsUnavailableReason()

if (!peerReady('NATS dispatcher contract', unavailable)) {
  describe('dispatcher contract: NATS JetStream', () => {
    it.skip(`SKIPPED: ${unavailable}`, () => {})
  })
} else {
  let server: NatsServer
  beforeAll(async () => {
    server = await startNatsServer()
  })
  afterAll(async () => {
    if (server) await deleteTestStreams(server.url)
    await server?.stop()
  })
  dispatcherContract(
    'NATS JetStream',
    async (settings) => new NatsDispatcher({ servers: server.url, ...uniqueTopology(), ...settings }),
  )
}
