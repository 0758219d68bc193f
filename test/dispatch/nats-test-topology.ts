// Each NATS test gets streams and subjects of its own, so tests sharing a server (NATS_URL) never meet;
// they are deleted afterwards so a shared server does not collect them.
import { randomBytes } from 'node:crypto'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'

const created: string[] = []

export function uniqueTopology() {
  const id = randomBytes(4).toString('hex')
  const stream = `TEST_${id}`
  created.push(stream, `${stream}_DEAD`)
  return { stream, subjectPrefix: `test_${id}`, consumer: 'workers' }
}

export async function deleteTestStreams(servers: string): Promise<void> {
  const nc = await connect({ servers })
  try {
    const jsm = await jetstreamManager(nc)
    const existing = new Set(await jsm.streams.names().next())
    for (const stream of created.splice(0)) if (existing.has(stream)) await jsm.streams.delete(stream)
  } finally {
    await nc.close()
  }
}
