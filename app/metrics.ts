// What operators watch, in Prometheus form (served at /metrics): request latency, jobs and their run
// time, credits moved, event-store appends, and, read when scraped, the queue depth, each read
// model's lag and which duties this process holds. Each process counts what it did itself; summed
// over the instances (as Prometheus does) the counters give the deployment's totals.
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '../domain/ports/event-store.ts'
import { LabelledHistogram } from './labelled-histogram.ts'

export interface Metrics {
  registry: Registry
  httpDuration: LabelledHistogram<'method' | 'route' | 'status'>
  jobsFinished: Counter<'tool' | 'outcome'>
  jobRunSeconds: Histogram<'tool'>
  credits: Counter<'tool' | 'direction'>
  appendSeconds: Histogram
  /** Gauges read at scrape time; set by whoever knows (see services and the ops routes). */
  queueDepth: Gauge
  projectionLag: Gauge<'model'>
  leaseHeld: Gauge<'duty'>
}

export function createMetrics(): Metrics {
  const registry = new Registry()
  return {
    registry,
    httpDuration: new LabelledHistogram(
      'kiln_http_request_duration_seconds',
      'HTTP request latency by route template, method and status.',
      ['method', 'route', 'status'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registry,
    ),
    jobsFinished: new Counter({
      name: 'kiln_jobs_finished_total',
      help: 'Jobs this process ran to an end, by tool and outcome (succeeded, failed).',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    }),
    jobRunSeconds: new Histogram({
      name: 'kiln_job_run_seconds',
      help: 'Wall time of a job run in its child process, by tool.',
      labelNames: ['tool'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    credits: new Counter({
      name: 'kiln_credits_total',
      help: 'Credits charged for jobs and refunded for failed ones, by tool and direction.',
      labelNames: ['tool', 'direction'],
      registers: [registry],
    }),
    appendSeconds: new Histogram({
      name: 'kiln_event_store_append_seconds',
      help: 'Latency of event-store appends (durable commits).',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'kiln_queue_depth',
      help: 'Jobs published to the dispatcher and not yet acknowledged.',
      registers: [registry],
    }),
    projectionLag: new Gauge({
      name: 'kiln_projection_lag_events',
      help: 'How many positions each read model is behind the event store head.',
      labelNames: ['model'],
      registers: [registry],
    }),
    leaseHeld: new Gauge({
      name: 'kiln_lease_held',
      help: '1 when this process holds the duty (projector, housekeeper), else 0.',
      labelNames: ['duty'],
      registers: [registry],
    }),
  }
}

interface MoneyEvent {
  type: string
  data: { tool?: string; amount?: number }
}

/** The event store, with each append timed and the credits its ledger events move counted. */
export function measuredEventStore(store: EventStore, metrics: Metrics): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append')
        return async (
          streamId: string,
          events: NewEvent[],
          expected: ExpectedRevision,
        ): Promise<AppendResult> => {
          const stop = metrics.appendSeconds.startTimer()
          const result = await target.append(streamId, events, expected)
          stop()
          for (const event of events as MoneyEvent[]) {
            const { tool, amount } = event.data ?? {}
            if (typeof tool !== 'string' || typeof amount !== 'number') continue
            if (event.type === 'JobCharged') metrics.credits.inc({ tool, direction: 'charged' }, amount)
            if (event.type === 'JobRefunded') metrics.credits.inc({ tool, direction: 'refunded' }, amount)
          }
          return result
        }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
