// The authorization server's storage adapter over both read stores (SQLite, and MongoDB through a
// real FerretDB): what oidc-provider asks of an adapter (upsert, find, consume, destroy, revoke by
// grant, find by uid), and that nothing stored is usable: ids are kept only as hashes and a token's
// value never appears in any stored document.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oauthCollectionName, ReadStoreOAuthAdapter } from '../../app/identity/oauth-store.ts'
import type { Services } from '../../app/services.ts'
import { MongoReadStore } from '../../projections/mongo-read-store.ts'
import type { ReadStore } from '../../projections/read-store.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { findFerretDb, type MongoServer, startMongoServer } from '../projections/support/mongo-server.ts'
import { peerReady } from '../support/peers.ts'

const asServices = (store: ReadStore) =>
  ({ models: { store }, ctx: { now: Date.now } }) as unknown as Services

function adapterContract(name: string, open: () => Promise<{ store: ReadStore; close(): Promise<void> }>) {
  describe(`OAuth adapter on ${name}`, () => {
    let store: ReadStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await open())
    })
    afterAll(() => close?.())

    const token = 'tok_' + 'x'.repeat(39)
    const adapter = (model: string) => new ReadStoreOAuthAdapter(asServices(store), model)

    it('finds what it stored by the id presented, and stores neither the id nor the token value', async () => {
      await adapter('AccessToken').upsert(
        token,
        { jti: token, grantId: 'grant-1', accountId: 'a1', kind: 'AccessToken' },
        60,
      )
      expect(await adapter('AccessToken').find(token)).toMatchObject({
        jti: token,
        grantId: 'grant-1',
        accountId: 'a1',
      })
      expect(await adapter('AccessToken').find('tok_other')).toBeUndefined()
      const stored = await store.collection(oauthCollectionName('AccessToken')).find({})
      expect(stored).toHaveLength(1)
      expect(JSON.stringify(stored)).not.toContain(token)
    })

    it('marks a code consumed, and a destroyed document stays gone whatever is written late', async () => {
      const code = 'code_' + 'y'.repeat(38)
      const codes = adapter('AuthorizationCode')
      await codes.upsert(code, { jti: code, grantId: 'grant-2' }, 60)
      await codes.consume(code)
      expect((await codes.find(code))?.consumed).toEqual(expect.any(Number))
      await codes.destroy(code)
      expect(await codes.find(code)).toBeUndefined()
      await codes.upsert(code, { jti: code, grantId: 'grant-2' }, 60)
      expect(await codes.find(code)).toBeUndefined()
    })

    it('revokes every token of a grant and nothing else', async () => {
      const refresh = adapter('RefreshToken')
      await refresh.upsert('rt-a', { jti: 'rt-a', grantId: 'grant-3' }, 60)
      await refresh.upsert('rt-b', { jti: 'rt-b', grantId: 'grant-3' }, 60)
      await refresh.upsert('rt-c', { jti: 'rt-c', grantId: 'grant-4' }, 60)
      await refresh.revokeByGrantId('grant-3')
      expect(await refresh.find('rt-a')).toBeUndefined()
      expect(await refresh.find('rt-b')).toBeUndefined()
      expect(await refresh.find('rt-c')).toMatchObject({ grantId: 'grant-4' })
    })

    it('answers an expired document as missing, and finds sessions by uid', async () => {
      await adapter('AccessToken').upsert('expired-token', { jti: 'expired-token' }, -1)
      expect(await adapter('AccessToken').find('expired-token')).toBeUndefined()
      await adapter('Session').upsert(
        'session-cookie',
        { jti: 'session-cookie', uid: 'uid-1', accountId: 'a1' },
        60,
      )
      expect(await adapter('Session').findByUid('uid-1')).toMatchObject({ accountId: 'a1' })
      const stored = await store.collection(oauthCollectionName('Session')).find({})
      expect(JSON.stringify(stored)).not.toContain('session-cookie')
    })
  })
}

adapterContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-oauth-store-'))
  const store = new SqliteReadStore(join(dir, 'reads.sqlite'))
  return {
    store,
    close: async () => {
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

const mongoMissing =
  !process.env.MONGODB_URL &&
  findFerretDb() === null &&
  'no MONGODB_URL and no ferretdb binary (FERRETDB_BIN, PATH, $(go env GOPATH)/bin)'
if (peerReady('OAuth adapter on MongoDB', mongoMissing)) {
  let server: MongoServer
  adapterContract('MongoDB (FerretDB)', async () => {
    const started = await startMongoServer()
    if (!started) throw new Error('MongoDB server vanished between discovery and start')
    server = started
    const store = await MongoReadStore.connect(server.url, `kiln_oauth_${process.pid}`)
    return {
      store,
      close: async () => {
        await store.dropDatabase()
        await store.close()
        await server.stop()
      },
    }
  })
}
