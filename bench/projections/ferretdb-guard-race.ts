// Measures how often two writers racing on one document leave the older copy in a MongoDB-wire
// server (FerretDB when MONGODB_URL is unset): `node_modules/.bin/node bench/projections/ferretdb-guard-race.ts`.
// The projections rely on the lease's fence (app/leased-duty.ts) where this is above zero.
import { MongoReadStore } from '../../projections/mongo-read-store.ts'
import { startMongoServer } from '../../test/projections/support/mongo-server.ts'

const server = await startMongoServer()
if (!server) {
  console.log('SKIPPED: no ferretdb binary and no MONGODB_URL (see test/projections/support/mongo-server.ts)')
  process.exit(0)
}
const a = await MongoReadStore.connect(server.url, 'race')
const b = await MongoReadStore.connect(server.url, 'race')
let lost = 0
const rounds = 300
for (let r = 0; r < rounds; r++) {
  const id = `d${r}`
  await a.collection<{ id: string; position: number; v: number }>('x').putGuarded([{ id, position: 1, v: 1 }])
  // Two writers at once: the older (position 5) and the newer (position 9).
  await Promise.all([
    a.collection<{ id: string; position: number; v: number }>('x').putGuarded([{ id, position: 5, v: 5 }]),
    b.collection<{ id: string; position: number; v: number }>('x').putGuarded([{ id, position: 9, v: 9 }]),
  ])
  const got = (await a.collection<{ id: string; position: number; v: number }>('x').get(id))!
  if (got.position !== 9) lost++
}
console.log(`older copy over the newer in ${lost} of ${rounds} races`)
await a.close()
await b.close()
await server.stop()
