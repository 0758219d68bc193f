// One consume() call on the durable pull consumer: `concurrency` loops, each pulling a single message
// only when it is free, so a worker never holds jobs it is not running (their ack_wait would tick while
// they sit in a buffer, and other workers could have run them).
import { setTimeout as delay } from 'node:timers/promises'
import type { ConsumerMessages, Consumer as JsConsumer, JsMsg } from '@nats-io/jetstream'
import type { ConsumeOptions, JobMessage } from '../../domain/ports/dispatcher.ts'
import { decodeJob } from './nats-codec.ts'
import { type RetryPolicy, redeliveryDelayMs } from './retry-policy.ts'
import { runDelivery } from './run-delivery.ts'

export interface PullSettings {
  policy: RetryPolicy
  ackWaitMs: number
  /** Keeps a copy of a dead job on the dead-letter subject. */
  publishDead(job: JobMessage): Promise<void>
}

/** How long one pull waits on the server for a message before the loop asks again. */
const pullExpiresMs = 30_000
/** Pause after a failed pull (server restarting, connection lost) before trying again. */
const pullRetryMs = 1_000

export class NatsPullConsumer {
  readonly #consumer: JsConsumer
  readonly #options: ConsumeOptions
  readonly #settings: PullSettings
  readonly #pulls = new Set<ConsumerMessages>()
  readonly #loops: Promise<void>[] = []
  readonly #stopping = new AbortController()

  constructor(consumer: JsConsumer, options: ConsumeOptions, settings: PullSettings) {
    this.#consumer = consumer
    this.#options = options
    this.#settings = settings
    for (let i = 0; i < options.concurrency; i++) this.#loops.push(this.#loop())
  }

  /** Stops pulling, lets the running jobs finish and settle, then returns. */
  async stop(): Promise<void> {
    this.#stopping.abort()
    for (const pull of this.#pulls) pull.stop()
    await Promise.all(this.#loops)
  }

  async #loop(): Promise<void> {
    const { signal } = this.#stopping
    while (!signal.aborted) {
      let msg: JsMsg | null
      try {
        msg = await this.#pullOne()
      } catch {
        await delay(pullRetryMs, undefined, { signal }).catch(() => {})
        continue
      }
      if (!msg) continue
      // Arrived while stopping: hand it straight back rather than let it wait out ack_wait.
      if (signal.aborted) bestEffort(() => msg.nak())
      else await this.#run(msg)
    }
  }

  async #pullOne(): Promise<JsMsg | null> {
    const pull = await this.#consumer.fetch({ max_messages: 1, expires: pullExpiresMs })
    this.#pulls.add(pull)
    try {
      for await (const msg of pull) return msg
      return null
    } finally {
      this.#pulls.delete(pull)
    }
  }

  async #run(msg: JsMsg): Promise<void> {
    let job: JobMessage
    try {
      job = decodeJob(msg.data)
    } catch {
      bestEffort(() => msg.term())
      return
    }
    const { policy, ackWaitMs } = this.#settings
    const working = () => bestEffort(() => msg.working())
    // The process is alive and the job is running, so keep the deadline ahead even if the handler is
    // busy in a child process and never reports.
    const heartbeat = setInterval(working, ackWaitMs / 3)
    try {
      const deliveryCount = msg.info.deliveryCount
      const outcome = await runDelivery({
        policy,
        options: this.#options,
        job,
        deliveryCount,
        working,
        recordDeadLetter: () => this.#settings.publishDead(job),
      })
      if (outcome === 'done') bestEffort(() => msg.ack())
      else if (outcome === 'retry') bestEffort(() => msg.nak(redeliveryDelayMs(policy, deliveryCount)))
      // No reason text: servers before 2.11 (Debian's 2.9) do not recognise a reasoned term and redeliver.
      else bestEffort(() => msg.term())
    } finally {
      clearInterval(heartbeat)
    }
  }
}

/**
 * Acks and progress are fire-and-forget publishes; on a lost connection they throw. The server then
 * redelivers once ack_wait passes, which at-least-once delivery allows, so the worker carries on.
 */
function bestEffort(signal: () => void): void {
  try {
    signal()
  } catch {}
}
