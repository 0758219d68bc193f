// What the application services need from the outside world, wired once at start-up.
import type { RandomSource } from '../domain/ids.ts'
import type { BlobStore } from '../domain/ports/blob-store.ts'
import type { Dispatcher } from '../domain/ports/dispatcher.ts'
import type { EventStore } from '../domain/ports/event-store.ts'
import type { PaymentProcessor } from '../domain/ports/payment-processor.ts'
import type { Config } from './config.ts'
import { storedInputName } from './jobs/input-names.ts'
import type { Metrics } from './metrics.ts'

export interface ServiceContext {
  config: Config
  store: EventStore
  blobs: BlobStore
  dispatcher: Dispatcher
  now(): number
  random: RandomSource
  /** Null when no payment processor is configured. */
  payments: PaymentProcessor | null
  metrics: Metrics
}

export const jobBlobPrefix = (jobId: string) => `jobs/${jobId}`
/** Where a job's input is kept: under our own name (see jobs/input-names.ts), never the client's. */
export const jobInputKey = (jobId: string, name: string) => `jobs/${jobId}/input/${storedInputName(name)}`
export const jobOutputKey = (jobId: string, name: string) => `jobs/${jobId}/out/${name}`
