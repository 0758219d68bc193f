// Where the OAuth authorization server (oidc-provider) keeps its models: grants, codes, access and
// refresh tokens, registered clients, interactions, its own sessions. They live in the read store
// (SQLite embedded, MongoDB scaled out) so that every API instance sees the same grants.
//
// Nothing is stored under the identifier the library hands us: every id (a token's value for opaque
// tokens, a session's cookie value, an interaction's uid) is kept only as its SHA-256, and the token
// value inside the payload (`jti`) is dropped. A copy of the store therefore holds no usable
// credential; a lookup hashes what the client presented, as API keys do (app/security/secrets.ts).
//
// Documents are written with the read store's position guard: an update goes in at the stored
// position plus one, and a destroyed document is a tombstone at the highest position, so no late
// write from another instance can bring a revoked token back.
import type { Doc, DocumentCollection } from '../../projections/read-store.ts'
import { hashSecret } from '../security/secrets.ts'
import type { Services } from '../services.ts'

/** A model's payload as oidc-provider passes it: JSON, with these fields used for lookups. */
export interface OAuthPayload {
  jti?: string
  grantId?: string
  uid?: string
  userCode?: string
  consumed?: number
  [field: string]: unknown
}

export interface OAuthDoc extends Doc {
  /** Epoch ms after which the document answers as missing (null: no expiry). */
  expiresAt: number | null
  grantId: string | null
  uid: string | null
  userCode: string | null
  destroyed: boolean
  /** The payload carried its id as `jti` (dropped here, given back on lookup from the presented id). */
  carriesId: boolean
  payload: OAuthPayload | null
}

const tombstone = Number.MAX_SAFE_INTEGER
/** Models whose documents name a grant, so ending the grant ends them. */
export const grantBoundModels = [
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
] as const

/** `AccessToken` → `oauth_access_token`. */
export const oauthCollectionName = (model: string) =>
  `oauth_${model.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()}`

const lookupKey = (value: string) => hashSecret(value)

/** The oidc-provider adapter interface over one model's collection. */
export class ReadStoreOAuthAdapter {
  readonly #services: Services
  readonly #name: string
  #indexed: Promise<void> | null = null

  constructor(services: Services, model: string) {
    this.#services = services
    this.#name = oauthCollectionName(model)
  }

  async #collection(): Promise<DocumentCollection<OAuthDoc>> {
    const { store } = this.#services.models
    this.#indexed ??= store.ensureIndexes(this.#name, [['grantId'], ['uid'], ['userCode']])
    await this.#indexed
    return store.collection<OAuthDoc>(this.#name)
  }

  #live(doc: OAuthDoc | null | undefined, id: string | null): OAuthPayload | undefined {
    if (!doc || doc.destroyed || !doc.payload) return undefined
    if (doc.expiresAt !== null && doc.expiresAt <= Date.now()) return undefined
    return doc.carriesId && id !== null ? { ...doc.payload, jti: id } : doc.payload
  }

  async upsert(id: string, payload: OAuthPayload, expiresIn?: number): Promise<void> {
    const collection = await this.#collection()
    const key = lookupKey(id)
    const stored = await collection.get(key)
    // Ids are random and never reused; a tombstone means a late write for something already ended.
    if (stored?.destroyed) return
    const { jti: _secret, ...kept } = payload
    await collection.putGuarded([
      {
        id: key,
        position: (stored?.position ?? 0) + 1,
        expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        destroyed: false,
        carriesId: payload.jti !== undefined,
        payload: kept,
      },
    ])
  }

  async find(id: string): Promise<OAuthPayload | undefined> {
    return this.#live(await (await this.#collection()).get(lookupKey(id)), id)
  }

  async findByUid(uid: string): Promise<OAuthPayload | undefined> {
    const [doc] = await (await this.#collection()).find({ where: { uid, destroyed: false }, limit: 1 })
    return this.#live(doc, null)
  }

  async findByUserCode(userCode: string): Promise<OAuthPayload | undefined> {
    const [doc] = await (await this.#collection()).find({ where: { userCode, destroyed: false }, limit: 1 })
    return this.#live(doc, null)
  }

  async consume(id: string): Promise<void> {
    const collection = await this.#collection()
    const doc = await collection.get(lookupKey(id))
    if (!doc?.payload || doc.destroyed) return
    await collection.putGuarded([
      {
        ...doc,
        position: doc.position + 1,
        payload: { ...doc.payload, consumed: Math.floor(Date.now() / 1000) },
      },
    ])
  }

  async destroy(id: string): Promise<void> {
    await destroyKeys(await this.#collection(), [lookupKey(id)])
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const collection = await this.#collection()
    const docs = await collection.find({ where: { grantId, destroyed: false } })
    await destroyKeys(
      collection,
      docs.map((doc) => doc.id),
    )
  }
}

async function destroyKeys(collection: DocumentCollection<OAuthDoc>, keys: string[]): Promise<void> {
  if (keys.length === 0) return
  await collection.putGuarded(
    keys.map((id) => ({
      id,
      position: tombstone,
      expiresAt: null,
      grantId: null,
      uid: null,
      userCode: null,
      destroyed: true,
      carriesId: false,
      payload: null,
    })),
  )
}

/**
 * Ends a grant for the whole service, whatever instance asks: its codes and tokens, then the grant
 * itself. The library does the same on replay detection; this is the console's way in.
 */
export async function destroyGrant(services: Services, grantId: string): Promise<void> {
  for (const model of grantBoundModels)
    await new ReadStoreOAuthAdapter(services, model).revokeByGrantId(grantId)
  await new ReadStoreOAuthAdapter(services, 'Grant').destroy(grantId)
}

/** A live access token presented to REST or MCP: its payload, or null when unknown, revoked or expired. */
export async function findAccessToken(services: Services, token: string): Promise<OAuthPayload | null> {
  if (token.length > 200) return null
  const doc = await services.models.store
    .collection<OAuthDoc>(oauthCollectionName('AccessToken'))
    .get(lookupKey(token))
  if (!doc || doc.destroyed || !doc.payload) return null
  const exp = typeof doc.payload.exp === 'number' ? doc.payload.exp * 1000 : doc.expiresAt
  if (exp === null || exp === undefined || exp <= services.ctx.now()) return null
  return doc.payload
}
