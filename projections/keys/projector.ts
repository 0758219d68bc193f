// API keys and console tokens (both from the account stream) → one credential document each.
import type { AccountEvent } from '../../domain/account/events.ts'
import type { Projector } from '../projector.ts'
import type { Doc } from '../read-store.ts'

export const keysModel = 'keys'
export const credentialsCollection = 'credentials'

export interface CredentialDoc extends Doc {
  accountId: string
  kind: 'api_key' | 'console_token'
  /** Null for console tokens. */
  name: string | null
  prefix: string
  secretHash: string
  createdAt: string
  revoked: boolean
  /** Console tokens only: when the token stops working (null: never, for tokens from before expiry). */
  expiresAt?: string | null
}

const credentialId = (event: AccountEvent): string | null => {
  switch (event.type) {
    case 'ApiKeyCreated':
    case 'ApiKeyRevoked':
      return event.data.keyId
    case 'ConsoleTokenIssued':
    case 'ConsoleTokenRevoked':
      return event.data.tokenId
    default:
      return null
  }
}

export const keysProjector: Projector = {
  model: keysModel,
  collections: { [credentialsCollection]: [['accountId', 'kind'], ['secretHash']] },
  touches(recorded) {
    const id = credentialId(recorded as unknown as AccountEvent)
    return id === null ? [] : [{ collection: credentialsCollection, id }]
  },
  apply(recorded, workspace) {
    const event = recorded as unknown as AccountEvent
    const id = credentialId(event)
    if (id === null) return
    workspace.update<CredentialDoc>(credentialsCollection, id, recorded, (current) => {
      switch (event.type) {
        case 'ApiKeyCreated': {
          const { accountId, name, prefix, secretHash, at } = event.data
          return current
            ? undefined
            : { accountId, kind: 'api_key', name, prefix, secretHash, createdAt: at, revoked: false }
        }
        case 'ConsoleTokenIssued': {
          const { accountId, prefix, secretHash, at, expiresAt = null } = event.data
          return current
            ? undefined
            : {
                accountId,
                kind: 'console_token',
                name: null,
                prefix,
                secretHash,
                createdAt: at,
                revoked: false,
                expiresAt,
              }
        }
        case 'ApiKeyRevoked':
        case 'ConsoleTokenRevoked':
          return current && { ...current, revoked: true }
        default:
          return undefined
      }
    })
  },
}
