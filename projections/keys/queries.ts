// Keys as the REST layer reads them, authentication by secret hash, and last use. Last use is not
// an event (it would turn every request into a write to the account stream): it lives in its own
// collection outside the model's generations, so rebuilds keep it, and its position is the time of
// use, so the guarded write keeps the latest.
import type { ReadModels } from '../read-models.ts'
import type { Doc } from '../read-store.ts'
import { type CredentialDoc, credentialsCollection, keysModel } from './projector.ts'

export const keyUsageCollection = 'key_usage'

interface KeyUsageDoc extends Doc {
  lastUsedAt: string
}

export interface ApiKeyRecord {
  id: string
  name: string
  prefix: string
  created_at: string
  last_used_at: string | null
}

export interface Credential {
  id: string
  accountId: string
  kind: 'api_key' | 'console_token'
  revoked: boolean
  expiresAt: string | null
}

const credentials = (models: ReadModels) => models.collection<CredentialDoc>(keysModel, credentialsCollection)

/** The account's API keys that are not revoked, oldest first. */
export async function listKeys(models: ReadModels, accountId: string): Promise<ApiKeyRecord[]> {
  const docs = (await (await credentials(models)).find({ where: { accountId, kind: 'api_key' } }))
    .filter((doc) => !doc.revoked)
    .sort((a, b) => a.position - b.position)
  const usage = await models.store
    .collection<KeyUsageDoc>(keyUsageCollection)
    .getMany(docs.map((doc) => doc.id))
  const lastUsed = new Map(usage.map((u) => [u.id, u.lastUsedAt]))
  return docs.map((doc) => ({
    id: doc.id,
    name: doc.name ?? '',
    prefix: doc.prefix,
    created_at: doc.createdAt,
    last_used_at: lastUsed.get(doc.id) ?? null,
  }))
}

/** The API key or console token with this secret hash, revoked or not; null when none has it. */
export async function findCredentialBySecretHash(
  models: ReadModels,
  secretHash: string,
): Promise<Credential | null> {
  const [doc] = await (await credentials(models)).find({ where: { secretHash }, limit: 1 })
  return doc ? credentialOf(doc) : null
}

/** The API key or console token with this id, revoked or not; null when there is none. */
export async function findCredentialById(models: ReadModels, id: string): Promise<Credential | null> {
  const doc = await (await credentials(models)).get(id)
  return doc ? credentialOf(doc) : null
}

const credentialOf = (doc: CredentialDoc): Credential => ({
  id: doc.id,
  accountId: doc.accountId,
  kind: doc.kind,
  revoked: doc.revoked,
  expiresAt: doc.expiresAt ?? null,
})

export async function recordKeyUse(models: ReadModels, keyId: string, at: Date): Promise<void> {
  await models.store
    .collection<KeyUsageDoc>(keyUsageCollection)
    .putGuarded([{ id: keyId, position: at.getTime(), lastUsedAt: at.toISOString() }])
}

export interface ConsoleTokenRecord {
  id: string
  prefix: string
  created_at: string
  expires_at: string | null
  last_used_at: string | null
  revoked: boolean
}

/** The account's console tokens, revoked ones included, oldest first. */
export async function listConsoleTokens(
  models: ReadModels,
  accountId: string,
): Promise<ConsoleTokenRecord[]> {
  const docs = (await (await credentials(models)).find({ where: { accountId, kind: 'console_token' } })).sort(
    (a, b) => a.position - b.position,
  )
  const usage = await models.store
    .collection<KeyUsageDoc>(keyUsageCollection)
    .getMany(docs.map((doc) => doc.id))
  const lastUsed = new Map(usage.map((u) => [u.id, u.lastUsedAt]))
  return docs.map((doc) => ({
    id: doc.id,
    prefix: doc.prefix,
    created_at: doc.createdAt,
    expires_at: doc.expiresAt ?? null,
    last_used_at: lastUsed.get(doc.id) ?? null,
    revoked: doc.revoked,
  }))
}
