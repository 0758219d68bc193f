// npm run projections:rebuild -- [model ...]   (all models when none is named)
// Rebuilds each model from position zero beside the live one and switches over. Stores: the server's, from the same configuration (app/stores.ts).
import { loadConfig } from '../app/config.ts'
import { openEventStore, openReadStore } from '../app/stores.ts'
import { projectorNamed, projectors } from './models.ts'
import { rebuildModel } from './rebuild.ts'

const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
const chosen = names.length === 0 ? projectors : names.map(projectorNamed)
const config = loadConfig()
const store = await openEventStore(config)
const reads = await openReadStore(config)
try {
  for (const projector of chosen) {
    const result = await rebuildModel(store, reads, projector)
    const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events
    console.log(
      `${result.model}: generation ${result.generation} built from ${result.events} events up to position ${result.position} in ${result.seconds.toFixed(2)} s (${rate} events/s), now active`,
    )
  }
} finally {
  await store.close()
  await reads.close()
}
