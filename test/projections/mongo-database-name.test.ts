// The server, the worker, `npm run audit` and `projections:rebuild` open MongoDB through one function
// (app/stores.ts), so they all pick the same database from MONGODB_URL.
import { describe, expect, it } from 'vitest'
import { databaseOf } from '../../projections/mongo-read-store.ts'

describe('the read-model database named by MONGODB_URL', () => {
  it.each([
    ['mongodb://127.0.0.1:27017', 'kiln'],
    ['mongodb://127.0.0.1:27017/', 'kiln'],
    ['mongodb://127.0.0.1:27017/?replicaSet=rs0', 'kiln'],
    ['mongodb://user:p%40ss@a:1,b:2/reads?replicaSet=rs0', 'reads'],
    ['mongodb+srv://cluster.example.net/kiln_prod?retryWrites=true', 'kiln_prod'],
  ])('%s -> %s', (url, database) => {
    expect(databaseOf(url)).toBe(database)
  })
})
