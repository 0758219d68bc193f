// Connected apps: the OAuth clients a person let act for their account. Consent and its end are
// events on the account stream (`OAuthAppConnected`, `OAuthAppDisconnected`); the list the console
// shows (client, scopes, last use) is kept beside the authorization server's models in the read
// store, with the last use written at most once a minute per grant, as key use is.
import { accountStream, type OAuthRevocationReason } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import type { Doc } from '../../projections/read-store.ts'
import { accountDecider } from '../deciders.ts'
import { handleCommand } from '../handle-command.ts'
import type { Services } from '../services.ts'
import { destroyGrant } from './oauth-store.ts'

export const oauthConnectionsCollection = 'oauth_connections'
const touchEveryMs = 60_000
const endedPosition = Number.MAX_SAFE_INTEGER

interface ConnectionDoc extends Doc {
  /** The grant id. */
  id: string
  accountId: string
  clientId: string
  clientName: string
  redirectHost: string
  scopes: string[]
  resource: string
  connectedAt: number
  lastUsedAt: number | null
  revoked: boolean
}

export interface ConnectedApp {
  id: string
  client_id: string
  client_name: string
  redirect_host: string
  scopes: string[]
  resource: string
  connected_at: string
  last_used_at: string | null
}

async function connections(services: Services) {
  const { store } = services.models
  await store.ensureIndexes(oauthConnectionsCollection, [['accountId', 'revoked']])
  return store.collection<ConnectionDoc>(oauthConnectionsCollection)
}

/** The person consented: recorded on the account stream, listed in the console. */
export async function connectApp(
  services: Services,
  app: {
    grantId: string
    accountId: string
    clientId: string
    clientName: string
    redirectHost: string
    scopes: string[]
    resource: string
  },
): Promise<void> {
  const { ctx } = services
  const now = ctx.now()
  await handleCommand(ctx.store, accountStream(app.accountId), accountDecider, {
    type: 'ConnectOAuthApp',
    data: { ...app, now },
  })
  const collection = await connections(services)
  const stored = await collection.get(app.grantId)
  if (stored?.revoked) return
  await collection.putGuarded([
    {
      id: app.grantId,
      position: (stored?.position ?? 0) + 1,
      accountId: app.accountId,
      clientId: app.clientId,
      clientName: app.clientName,
      redirectHost: app.redirectHost,
      // A grant that gains scopes in a later consent keeps the earlier ones.
      scopes: [...new Set([...(stored?.scopes ?? []), ...app.scopes])].sort(),
      resource: app.resource,
      connectedAt: stored?.connectedAt ?? now,
      lastUsedAt: stored?.lastUsedAt ?? null,
      revoked: false,
    },
  ])
}

/**
 * The grant ended (the library already destroyed its tokens, or `destroy` asks for it here): the
 * event, and the app leaves the list. Unknown or already ended grants are left alone.
 */
export async function disconnectApp(
  services: Services,
  grantId: string,
  reason: OAuthRevocationReason,
  { destroy = false }: { destroy?: boolean } = {},
): Promise<void> {
  if (destroy) await destroyGrant(services, grantId)
  const collection = await connections(services)
  const doc = await collection.get(grantId)
  if (!doc || doc.revoked) return
  await handleCommand(services.ctx.store, accountStream(doc.accountId), accountDecider, {
    type: 'DisconnectOAuthApp',
    data: { grantId, reason, now: services.ctx.now() },
  })
  await collection.putGuarded([{ ...doc, position: endedPosition, revoked: true }])
}

/** The owner revokes an app from the console: every token of the grant stops working at once. */
export async function revokeConnectedApp(services: Services, accountId: string, grantId: string) {
  const doc = await (await connections(services)).get(grantId)
  if (!doc || doc.accountId !== accountId || doc.revoked)
    throw new DomainError('not_found', 'No such connected app.')
  await disconnectApp(services, grantId, 'revoked_by_owner', { destroy: true })
}

export async function listConnectedApps(services: Services, accountId: string): Promise<ConnectedApp[]> {
  const docs = await (await connections(services)).find({
    where: { accountId, revoked: false },
    orderBy: { field: 'connectedAt', direction: 'desc' },
  })
  return docs.map((doc) => ({
    id: doc.id,
    client_id: doc.clientId,
    client_name: doc.clientName,
    redirect_host: doc.redirectHost,
    scopes: doc.scopes,
    resource: doc.resource,
    connected_at: new Date(doc.connectedAt).toISOString(),
    last_used_at: doc.lastUsedAt === null ? null : new Date(doc.lastUsedAt).toISOString(),
  }))
}

/** A token of the grant was used; written at most once a minute. */
export async function recordOAuthUse(services: Services, grantId: string): Promise<void> {
  const collection = await connections(services)
  const doc = await collection.get(grantId)
  const now = services.ctx.now()
  if (!doc || doc.revoked || (doc.lastUsedAt !== null && now - doc.lastUsedAt < touchEveryMs)) return
  await collection.putGuarded([{ ...doc, position: doc.position + 1, lastUsedAt: now }])
}
