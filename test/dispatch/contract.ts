// The dispatcher contract: every adapter of domain/ports/dispatcher.ts runs this suite.
import { randomUUID } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ConsumeOptions, Consumer, Dispatcher, JobMessage } from '../../domain/ports/dispatcher.ts'

export interface ContractSettings {
  maxDeliver: number
  ackWaitMs: number
  retryDelayMs: number
}

/** Short enough to keep the suite quick, long enough for a loaded CI machine. */
export const contractSettings: ContractSettings = { maxDeliver: 3, ackWaitMs: 1_000, retryDelayMs: 50 }

const eventually = { timeout: 10_000, interval: 20 }

export const newJob = (tool = 'get_random_numbers'): JobMessage => ({ jobId: randomUUID(), tool })

/** A manually released barrier, for holding a handler mid-job. */
export function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

/** Records what a consumer was given, in order. */
export function recorder() {
  const deliveries: { jobId: string; tool: string; attempt: number }[] = []
  const deadLetters: { jobId: string; attempts: number }[] = []
  return {
    deliveries,
    deadLetters,
    attemptsOf: (jobId: string) => deliveries.filter((d) => d.jobId === jobId).map((d) => d.attempt),
    options(handle: ConsumeOptions['handle'] = async () => {}, concurrency = 1): ConsumeOptions {
      return {
        concurrency,
        handle: async (job, delivery) => {
          deliveries.push({ ...job, attempt: delivery.attempt })
          await handle(job, delivery)
        },
        deadLetter: async (job, attempts) => {
          deadLetters.push({ jobId: job.jobId, attempts })
        },
      }
    },
  }
}

export function dispatcherContract(name: string, open: (settings: ContractSettings) => Promise<Dispatcher>) {
  describe(`dispatcher contract: ${name}`, () => {
    const opened: Dispatcher[] = []
    const started: Consumer[] = []
    const dispatcher = async (settings: Partial<ContractSettings> = {}) => {
      const d = await open({ ...contractSettings, ...settings })
      opened.push(d)
      return d
    }
    const consume = async (d: Dispatcher, options: ConsumeOptions) => {
      const consumer = await d.consume(options)
      started.push(consumer)
      return consumer
    }
    const drained = async (d: Dispatcher) => {
      await vi.waitFor(async () => expect(await d.pending()).toBe(0), eventually)
    }

    afterEach(async () => {
      await Promise.all(started.splice(0).map((consumer) => consumer.stop()))
      await Promise.all(opened.splice(0).map((d) => d.close()))
    })

    it('delivers a published job to the handler and acknowledges it', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const job = newJob('simplify_3d_model')
      await d.publish(job)
      await consume(d, seen.options())
      await vi.waitFor(() => expect(seen.deliveries).toEqual([{ ...job, attempt: 1 }]), eventually)
      await drained(d)
      expect(seen.deadLetters).toEqual([])
    })

    it('runs a job published twice, once queued and once while running, a single time', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const release = gate()
      const job = newJob()
      const after = newJob()
      await d.publish(job)
      await d.publish(job)
      await consume(
        d,
        seen.options(async (j) => {
          if (j.jobId === job.jobId) await release.opened
        }),
      )
      await vi.waitFor(() => expect(seen.attemptsOf(job.jobId)).toEqual([1]), eventually)
      await d.publish(job)
      release.open()
      // One consumer, one slot, first in first out: once `after` ran, any duplicate would have run too.
      await d.publish(after)
      await vi.waitFor(() => expect(seen.attemptsOf(after.jobId)).toEqual([1]), eventually)
      expect(seen.attemptsOf(job.jobId)).toEqual([1])
      await drained(d)
    })

    it('delivers a deliberate re-publish of a finished job (a lost job sent again), once per republish number', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const job = newJob()
      await consume(d, seen.options())
      await d.publish(job)
      await vi.waitFor(() => expect(seen.attemptsOf(job.jobId)).toEqual([1]), eventually)
      await drained(d)
      await d.publish({ ...job, republish: 1 })
      await d.publish({ ...job, republish: 1 })
      await vi.waitFor(() => expect(seen.attemptsOf(job.jobId)).toHaveLength(2), eventually)
      await drained(d)
      const after = newJob()
      await d.publish(after)
      await vi.waitFor(() => expect(seen.attemptsOf(after.jobId)).toEqual([1]), eventually)
      expect(seen.attemptsOf(job.jobId)).toHaveLength(2)
    })

    it('redelivers a rejected job with attempt 2, 3 until the handler succeeds', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const job = newJob()
      await d.publish(job)
      await consume(
        d,
        seen.options(async (_, delivery) => {
          if (delivery.attempt < 3) throw new Error(`transient failure ${delivery.attempt}`)
        }),
      )
      await vi.waitFor(() => expect(seen.attemptsOf(job.jobId)).toEqual([1, 2, 3]), eventually)
      await drained(d)
      expect(seen.deadLetters).toEqual([])
    })

    it('dead-letters a job exactly once after max deliveries, and never runs it again', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const job = newJob()
      await d.publish(job)
      await consume(
        d,
        seen.options(async () => {
          throw new Error('always fails')
        }),
      )
      await vi.waitFor(() => expect(seen.deadLetters).toHaveLength(1), eventually)
      await drained(d)
      // Longer than any redelivery delay the adapters would use for a fourth attempt.
      await delay(contractSettings.retryDelayMs * 5)
      expect(seen.deadLetters).toEqual([{ jobId: job.jobId, attempts: contractSettings.maxDeliver }])
      expect(seen.attemptsOf(job.jobId)).toEqual([1, 2, 3])
    })

    it('retries a failing dead letter without running the job again', async () => {
      const d = await dispatcher({ maxDeliver: 1 })
      const job = newJob()
      const deadLetterAttempts: number[] = []
      let handled = 0
      await d.publish(job)
      await consume(d, {
        concurrency: 1,
        handle: async () => {
          handled += 1
          throw new Error('fails')
        },
        deadLetter: async (_, attempts) => {
          deadLetterAttempts.push(attempts)
          if (deadLetterAttempts.length === 1) throw new Error('event store unavailable')
        },
      })
      await vi.waitFor(() => expect(deadLetterAttempts).toHaveLength(2), eventually)
      await drained(d)
      expect(deadLetterAttempts).toEqual([1, 1])
      expect(handled).toBe(1)
    })

    it('keeps a job that reports working() past the ack deadline from being redelivered', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const job = newJob()
      let finished = false
      await d.publish(job)
      await consume(
        d,
        seen.options(async (_, delivery) => {
          const until = Date.now() + contractSettings.ackWaitMs * 2.5
          while (Date.now() < until) {
            delivery.working()
            await delay(contractSettings.ackWaitMs / 4)
          }
          finished = true
        }, 2),
      )
      await vi.waitFor(() => expect(finished).toBe(true), eventually)
      await drained(d)
      expect(seen.attemptsOf(job.jobId)).toEqual([1])
    })

    it('runs no more jobs at once than the concurrency', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const jobs = Array.from({ length: 8 }, () => newJob())
      let running = 0
      let mostRunning = 0
      for (const job of jobs) await d.publish(job)
      await consume(
        d,
        seen.options(async () => {
          running += 1
          mostRunning = Math.max(mostRunning, running)
          await delay(100)
          running -= 1
        }, 3),
      )
      await vi.waitFor(() => expect(seen.deliveries).toHaveLength(8), eventually)
      await drained(d)
      expect(mostRunning).toBe(3)
      expect(new Set(seen.deliveries.map((x) => x.jobId))).toEqual(new Set(jobs.map((j) => j.jobId)))
    })

    it('stop() lets the running job finish and takes no more work; the next consumer gets it first-hand', async () => {
      const d = await dispatcher()
      const seen = recorder()
      const release = gate()
      const running = newJob()
      const later = newJob()
      await d.publish(running)
      const first = await d.consume(seen.options(() => release.opened))
      await vi.waitFor(() => expect(seen.attemptsOf(running.jobId)).toEqual([1]), eventually)
      let stopped = false
      const stopping = first.stop().then(() => {
        stopped = true
      })
      await delay(50)
      expect(stopped).toBe(false)
      release.open()
      await stopping
      await drained(d)

      await d.publish(later)
      await delay(300)
      expect(seen.attemptsOf(later.jobId)).toEqual([])
      expect(await d.pending()).toBe(1)

      const next = recorder()
      await consume(d, next.options())
      // Attempt 1: the stopped consumer neither held the job nor handed it back.
      await vi.waitFor(() => expect(next.deliveries).toEqual([{ ...later, attempt: 1 }]), eventually)
      await drained(d)
    })

    it('pending() counts queued and running jobs until they are acknowledged', async () => {
      const d = await dispatcher()
      const release = gate()
      const seen = recorder()
      expect(await d.pending()).toBe(0)
      for (let i = 0; i < 3; i++) await d.publish(newJob())
      await vi.waitFor(async () => expect(await d.pending()).toBe(3), eventually)
      await consume(
        d,
        seen.options(() => release.opened),
      )
      await vi.waitFor(() => expect(seen.deliveries).toHaveLength(1), eventually)
      expect(await d.pending()).toBe(3)
      release.open()
      await drained(d)
      expect(seen.deliveries).toHaveLength(3)
    })

    it('refuses to publish once closed', async () => {
      const d = await dispatcher()
      await d.pending()
      await d.close()
      await expect(d.publish(newJob())).rejects.toThrow(/closed/)
    })

    it('shares the work between two consumers', async () => {
      const d = await dispatcher()
      const a = recorder()
      const b = recorder()
      const jobs = Array.from({ length: 6 }, () => newJob())
      const slow = () => delay(100)
      await consume(d, a.options(slow))
      await consume(d, b.options(slow))
      for (const job of jobs) await d.publish(job)
      await vi.waitFor(() => expect(a.deliveries.length + b.deliveries.length).toBe(6), eventually)
      await drained(d)
      expect(a.deliveries.length).toBeGreaterThan(0)
      expect(b.deliveries.length).toBeGreaterThan(0)
    })
  })
}
