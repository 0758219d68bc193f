// The scale-out dispatcher: jobs on a NATS JetStream work-queue stream, pulled by a durable consumer that
// every worker process shares.
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import type { ConsumeOptions, Consumer, Dispatcher, JobMessage } from '../../domain/ports/dispatcher.ts'
import { assertSubjectToken, encodeJob } from './nats-codec.ts'
import { NatsPullConsumer } from './nats-pull-consumer.ts'
import { deadSubject, ensureTopology, jobSubject, type NatsTopology } from './nats-topology.ts'
import { defaultRetryPolicy } from './retry-policy.ts'

export interface NatsDispatcherOptions {
  /** NATS_URL, e.g. `nats://127.0.0.1:4222` (comma-separated for several servers). */
  servers: string
  /** Work-queue stream (default `KILN_JOBS`); dead letters go to `<stream>_DEAD`. */
  stream?: string
  /** Durable pull consumer shared by all workers (default `kiln-workers`). */
  consumer?: string
  /** Subjects are `<prefix>.jobs.<tool>` and `<prefix>.dead.<tool>` (default `kiln`). */
  subjectPrefix?: string
  /** Deliveries that run the handler before the job is dead-lettered (default 3). */
  maxDeliver?: number
  /** How long a job may go without an ack or progress before it is redelivered (default 30 s). */
  ackWaitMs?: number
  /** Delay before the first redelivery of a rejected job (default 1 s). */
  retryDelayMs?: number
}

interface Connected {
  nc: NatsConnection
  js: JetStreamClient
  jsm: JetStreamManager
}

/** The streams, consumer and settings a dispatcher with these options works through. */
export function topologyOf(options: Omit<NatsDispatcherOptions, 'servers'>): NatsTopology {
  const stream = options.stream ?? 'KILN_JOBS'
  return {
    stream,
    deadStream: `${stream}_DEAD`,
    consumer: options.consumer ?? 'kiln-workers',
    subjectPrefix: options.subjectPrefix ?? 'kiln',
    ackWaitMs: options.ackWaitMs ?? 30_000,
    policy: {
      maxDeliver: options.maxDeliver ?? defaultRetryPolicy.maxDeliver,
      retryDelayMs: options.retryDelayMs ?? defaultRetryPolicy.retryDelayMs,
    },
  }
}

export class NatsDispatcher implements Dispatcher {
  readonly #servers: string[]
  readonly #topology: NatsTopology
  readonly #consumers = new Set<NatsPullConsumer>()
  #connected: Promise<Connected> | undefined
  #closed = false

  constructor(options: NatsDispatcherOptions) {
    this.#servers = options.servers.split(',').map((server) => server.trim())
    this.#topology = topologyOf(options)
  }

  async publish(job: JobMessage): Promise<void> {
    assertSubjectToken(job.tool)
    const { js } = await this.#connect()
    // The stream drops a second message with the same id inside its duplicate window.
    await js.publish(jobSubject(this.#topology, job.tool), encodeJob(job), {
      msgID: job.republish ? `${job.jobId}#${job.republish}` : job.jobId,
    })
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`)
    }
    const { js } = await this.#connect()
    const durable = await js.consumers.get(this.#topology.stream, this.#topology.consumer)
    const pull = new NatsPullConsumer(durable, options, {
      policy: this.#topology.policy,
      ackWaitMs: this.#topology.ackWaitMs,
      publishDead: async (job) => {
        await js.publish(deadSubject(this.#topology, job.tool), encodeJob(job), { msgID: job.jobId })
      },
    })
    this.#consumers.add(pull)
    return {
      stop: async () => {
        this.#consumers.delete(pull)
        await pull.stop()
      },
    }
  }

  async pending(): Promise<number> {
    const { jsm } = await this.#connect()
    const info = await jsm.consumers.info(this.#topology.stream, this.#topology.consumer)
    return info.num_pending + info.num_ack_pending
  }

  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([...this.#consumers].map((pull) => pull.stop()))
    this.#consumers.clear()
    // A connection that never opened has nothing to flush.
    const connected = await this.#connected?.catch(() => undefined)
    this.#connected = undefined
    // Draining flushes the acks of the jobs that just finished before the socket goes.
    await connected?.nc.drain()
  }

  #connect(): Promise<Connected> {
    if (this.#closed) return Promise.reject(new Error('dispatcher is closed'))
    this.#connected ??= this.#open().catch((error: unknown) => {
      this.#connected = undefined
      throw error
    })
    return this.#connected
  }

  async #open(): Promise<Connected> {
    // A worker outlives a restart of the NATS server: reconnect for as long as it takes.
    const nc = await connect({ servers: this.#servers, name: 'kiln-dispatch', maxReconnectAttempts: -1 })
    try {
      const jsm = await jetstreamManager(nc)
      await ensureTopology(jsm, this.#topology)
      return { nc, js: jetstream(nc), jsm }
    } catch (error) {
      await nc.close()
      throw error
    }
  }
}
