// Passkeys (from the account stream) → one document per credential id: what verifying a sign-in with
// it needs (public key, counter, transports) and which account it opens.
import type { AccountEvent } from '../../domain/account/events.ts'
import type { Projector } from '../projector.ts'
import type { Doc } from '../read-store.ts'

export const passkeysModel = 'passkeys'
export const passkeysCollection = 'passkeys'

export interface PasskeyDoc extends Doc {
  accountId: string
  publicKey: string
  counter: number
  transports: string[]
  createdAt: string
  lastUsedAt: string | null
}

const credentialIdOf = (event: AccountEvent): string | null =>
  event.type === 'PasskeyRegistered' || event.type === 'PasskeyUsed' ? event.data.credentialId : null

export const passkeysProjector: Projector = {
  model: passkeysModel,
  collections: { [passkeysCollection]: [['accountId']] },
  touches(recorded) {
    const id = credentialIdOf(recorded as unknown as AccountEvent)
    return id === null ? [] : [{ collection: passkeysCollection, id }]
  },
  apply(recorded, workspace) {
    const event = recorded as unknown as AccountEvent
    const id = credentialIdOf(event)
    if (id === null) return
    workspace.update<PasskeyDoc>(passkeysCollection, id, recorded, (current) => {
      switch (event.type) {
        case 'PasskeyRegistered': {
          const { accountId, publicKey, counter, transports, at } = event.data
          return current
            ? undefined
            : { accountId, publicKey, counter, transports, createdAt: at, lastUsedAt: null }
        }
        case 'PasskeyUsed':
          return (
            current && {
              ...current,
              counter: Math.max(current.counter, event.data.counter),
              lastUsedAt: event.data.at,
            }
          )
        default:
          return undefined
      }
    })
  },
}
