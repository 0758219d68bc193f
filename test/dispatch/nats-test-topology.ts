// Each NATS test gets streams and subjects of its own, so tests sharing a server (NATS_URL) never meet.
import { randomBytes } from 'node:crypto'

export function uniqueTopology() {
  const id = randomBytes(4).toString('hex')
  return { stream: `TEST_${id}`, subjectPrefix: `test_${id}`, consumer: 'workers' }
}
