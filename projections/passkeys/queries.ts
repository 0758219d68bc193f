// Passkeys as sign-in and the console read them.
import type { ReadModels } from '../read-models.ts'
import { type PasskeyDoc, passkeysCollection, passkeysModel } from './projector.ts'

export interface Passkey {
  credentialId: string
  accountId: string
  publicKey: string
  counter: number
  transports: string[]
}

const passkeys = (models: ReadModels) => models.collection<PasskeyDoc>(passkeysModel, passkeysCollection)

/** The passkey with this credential id, or null when none is registered. */
export async function findPasskey(models: ReadModels, credentialId: string): Promise<Passkey | null> {
  if (credentialId.length === 0 || credentialId.length > 1400) return null
  const doc = await (await passkeys(models)).get(credentialId)
  return doc
    ? {
        credentialId: doc.id,
        accountId: doc.accountId,
        publicKey: doc.publicKey,
        counter: doc.counter,
        transports: doc.transports,
      }
    : null
}

/** The account's passkeys, oldest first, as the console lists them. */
export async function listPasskeys(models: ReadModels, accountId: string) {
  const docs = (await (await passkeys(models)).find({ where: { accountId } })).sort(
    (a, b) => a.position - b.position,
  )
  return docs.map((doc) => ({
    id: doc.id,
    transports: doc.transports,
    created_at: doc.createdAt,
    last_used_at: doc.lastUsedAt,
  }))
}
