// Work dispatch: at least once on the wire. Handlers must be idempotent (the job lifecycle is).

export interface JobMessage {
  jobId: string
  tool: string
  /**
   * Set when a job thought lost (its node died) is published again on purpose: each number is
   * de-duplicated on its own, so the bus does not drop it as a repeat of the first publish.
   */
  republish?: number
}

export interface Delivery {
  /** 1 for the first delivery, then 2, 3, … on redelivery. */
  attempt: number
  /** Tells the bus the job is still being worked on (extends the ack deadline). */
  working(): void
}

export interface ConsumeOptions {
  /** How many jobs this consumer runs at once. */
  concurrency: number
  /** Resolve to acknowledge; reject to have the job redelivered later. */
  handle(job: JobMessage, delivery: Delivery): Promise<void>
  /** Called once for a job that failed every allowed delivery (the dead letter). */
  deadLetter(job: JobMessage, attempts: number): Promise<void>
}

export interface Consumer {
  stop(): Promise<void>
}

export interface Dispatcher {
  /** Publishes a job; publishing the same job id (and republish number) again is de-duplicated. */
  publish(job: JobMessage): Promise<void>
  consume(options: ConsumeOptions): Promise<Consumer>
  /** Jobs published and not yet acknowledged (for 503 busy). */
  pending(): Promise<number>
  close(): Promise<void>
}
