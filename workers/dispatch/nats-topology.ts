// The JetStream objects kiln dispatches through, created or brought up to date at start. Any number of
// workers may run this at the same moment: every step converges on the same configuration.
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream'
import { nanos } from '@nats-io/transport-node'
import { deadLetterRetries, type RetryPolicy } from './retry-policy.ts'

export interface NatsTopology {
  stream: string
  deadStream: string
  consumer: string
  /** Subjects are `<prefix>.jobs.<tool>` and `<prefix>.dead.<tool>`. */
  subjectPrefix: string
  ackWaitMs: number
  policy: RetryPolicy
}

/**
 * Covers a publisher's retries and the re-feeding of queued jobs after a restart. A job published again
 * after the window runs again, which the idempotent job lifecycle makes harmless.
 */
const duplicateWindowMs = 10 * 60_000
/** Dead jobs are already failed and refunded by the handler; the copy is for operators to inspect. */
const deadLetterMaxAgeMs = 14 * 24 * 3_600_000
/** "stream name already in use with a different configuration" */
const streamNameInUse = 10058
/**
 * "subjects overlap with an existing stream". Two workers creating the same stream at once can get this
 * instead of success: the server checks the subjects against a stream the other request has just made.
 */
const subjectsOverlap = 10065

export const jobSubject = (topology: NatsTopology, tool: string) => `${topology.subjectPrefix}.jobs.${tool}`
export const deadSubject = (topology: NatsTopology, tool: string) => `${topology.subjectPrefix}.dead.${tool}`

export async function ensureTopology(jsm: JetStreamManager, topology: NatsTopology): Promise<void> {
  await ensureStream(jsm, {
    name: topology.stream,
    subjects: [jobSubject(topology, '>')],
    // A job leaves the stream when a worker acknowledges (or terminates) it.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(duplicateWindowMs),
  })
  await ensureStream(jsm, {
    name: topology.deadStream,
    subjects: [deadSubject(topology, '>')],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(deadLetterMaxAgeMs),
    duplicate_window: nanos(duplicateWindowMs),
  })
  // Creating a durable with the same name is create-or-update on the server, so concurrent starts agree.
  await jsm.consumers.add(topology.stream, {
    durable_name: topology.consumer,
    filter_subject: jobSubject(topology, '>'),
    deliver_policy: DeliverPolicy.All,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(topology.ackWaitMs),
    // Deliveries past maxDeliver only dead-letter the job (see runDelivery), so a worker that died during
    // the last attempt still ends in the dead letter instead of leaving the job stuck in the stream.
    max_deliver: topology.policy.maxDeliver + deadLetterRetries,
  })
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  try {
    await jsm.streams.add(config)
  } catch (error) {
    if (!(error instanceof JetStreamApiError)) throw error
    if (error.code !== streamNameInUse && error.code !== subjectsOverlap) throw error
    // An overlap with a stream of another name is a real conflict; with our own, a concurrent start.
    if (error.code === subjectsOverlap && !(await streamExists(jsm, config.name))) throw error
    // An older configuration: update what may change; the server refuses what may not (e.g. retention).
    await jsm.streams.update(config.name, config)
  }
}

async function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    await jsm.streams.info(name)
    return true
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return false
    throw error
  }
}
