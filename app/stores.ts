// Opening the stores and the dispatcher from the configuration: the one place every process (the
// server, `npm run worker`, `npm run audit`, `npm run projections:rebuild`) gets them, with the same
// defaults, so they all see the same data.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { LocalBlobStore } from '../adapters/blobs/local.ts'
import { parseS3Url, S3BlobStore } from '../adapters/blobs/s3.ts'
import { KurrentDbEventStore } from '../adapters/eventstore/kurrentdb.ts'
import { SqliteEventStore } from '../adapters/eventstore/sqlite.ts'
import type { BlobStore } from '../domain/ports/blob-store.ts'
import type { Dispatcher } from '../domain/ports/dispatcher.ts'
import type { EventStore } from '../domain/ports/event-store.ts'
import { MongoReadStore } from '../projections/mongo-read-store.ts'
import type { ReadStore } from '../projections/read-store.ts'
import { SqliteReadStore } from '../projections/sqlite-read-store.ts'
import { InProcessDispatcher } from '../workers/dispatch/in-process.ts'
import { NatsDispatcher } from '../workers/dispatch/nats.ts'
import type { Config } from './config.ts'

export async function openEventStore(config: Config): Promise<EventStore> {
  mkdirSync(config.dataDir, { recursive: true })
  return config.kurrentDbUrl
    ? new KurrentDbEventStore(config.kurrentDbUrl)
    : new SqliteEventStore(join(config.dataDir, 'events.db'))
}

export async function openReadStore(config: Config): Promise<ReadStore> {
  return config.mongoDbUrl
    ? MongoReadStore.connect(config.mongoDbUrl)
    : new SqliteReadStore(join(config.dataDir, 'read.db'))
}

/** Blobs in a local folder under DATA_DIR, or in an S3-compatible bucket named by BLOBS_URL. */
export function openBlobStore(config: Config): BlobStore {
  return config.blobsUrl
    ? new S3BlobStore(parseS3Url(config.blobsUrl))
    : new LocalBlobStore(join(config.dataDir, 'blobs'))
}

export function openDispatcher(config: Config): Dispatcher {
  return config.natsUrl
    ? new NatsDispatcher({ servers: config.natsUrl, maxDeliver: config.maxJobAttempts })
    : new InProcessDispatcher({ maxDeliver: config.maxJobAttempts })
}
