// The stores the CLIs (and the server) use, chosen by environment:
//   DATA_DIR       default ./data
//   EVENT_STORE    sqlite (default: $DATA_DIR/events.db) or kurrentdb (KURRENTDB_URL)
//   KURRENTDB_URL  a KurrentDB connection string; setting it alone also selects KurrentDB
//   MONGODB_URL    read models in MongoDB (the URL's database, default kiln); otherwise SQLite $DATA_DIR/read.db
import { join } from 'node:path'
import { KurrentDbEventStore } from '../adapters/eventstore/kurrentdb.ts'
import { SqliteEventStore } from '../adapters/eventstore/sqlite.ts'
import type { EventStore } from '../domain/ports/event-store.ts'
import { MongoReadStore } from './mongo-read-store.ts'
import type { ReadStore } from './read-store.ts'
import { SqliteReadStore } from './sqlite-read-store.ts'

type Env = Record<string, string | undefined>

const dataDir = (env: Env) => env.DATA_DIR ?? './data'

export function eventStoreFromEnv(env: Env = process.env): EventStore {
  const kind = env.EVENT_STORE ?? (env.KURRENTDB_URL ? 'kurrentdb' : 'sqlite')
  if (kind === 'sqlite') return new SqliteEventStore(join(dataDir(env), 'events.db'))
  if (kind === 'kurrentdb') {
    if (!env.KURRENTDB_URL) throw new Error('EVENT_STORE=kurrentdb needs KURRENTDB_URL')
    return new KurrentDbEventStore(env.KURRENTDB_URL)
  }
  throw new Error(`EVENT_STORE is sqlite or kurrentdb, not ${kind}`)
}

export async function readStoreFromEnv(env: Env = process.env): Promise<ReadStore> {
  if (env.MONGODB_URL)
    return MongoReadStore.connect(env.MONGODB_URL, new URL(env.MONGODB_URL).pathname.slice(1) || 'kiln')
  return new SqliteReadStore(join(dataDir(env), 'read.db'))
}
