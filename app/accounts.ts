// Accounts and their credentials: opening, grants by operators, keys and console tokens.

import { accountStream, type LotKind } from '../domain/account/events.ts'
import { DomainError } from '../domain/errors.ts'
import {
  apiKeyPrefix,
  consoleTokenPrefix,
  newAccountId,
  newKeyId,
  newLotId,
  newSecret,
  visiblePrefixLength,
} from '../domain/ids.ts'
import type { ServiceContext } from './context.ts'
import { accountDecider } from './deciders.ts'
import { handleCommand } from './handle-command.ts'
import { hashSecret } from './security/secrets.ts'

export const keyPolicy = { maxActiveKeys: 10, maxNewKeysPerDay: 20 }

export async function openAccount(
  ctx: ServiceContext,
  {
    login,
    email,
    credits,
    accountId = newAccountId(ctx.random),
  }: { login: string; email: string | null; credits?: number; accountId?: string },
) {
  const now = ctx.now()
  const { position } = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'OpenAccount',
    data: {
      accountId,
      login,
      email,
      signupLotId: newLotId(ctx.random),
      signupCredits: credits ?? ctx.config.signupCredits,
      signupExpiresAt: now + ctx.config.signupCreditsValidMs,
      now,
    },
  })
  return { accountId, position }
}

export async function grantCredits(
  ctx: ServiceContext,
  accountId: string,
  {
    credits,
    kind = 'adjustment',
    validMs = 365 * 86_400_000,
    reason = 'operator grant',
    paymentRef = null,
    lotId,
  }: {
    credits: number
    kind?: LotKind
    validMs?: number
    reason?: string
    paymentRef?: string | null
    lotId?: string
  },
) {
  const now = ctx.now()
  return handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'GrantCredits',
    data: {
      lotId: lotId ?? newLotId(ctx.random),
      kind,
      credits,
      expiresAt: now + validMs,
      reason,
      paymentRef,
      now,
    },
  })
}

export async function setAccountEnabled(
  ctx: ServiceContext,
  accountId: string,
  enabled: boolean,
  reason = 'operator',
) {
  const now = ctx.now()
  return handleCommand(
    ctx.store,
    accountStream(accountId),
    accountDecider,
    enabled ? { type: 'Enable', data: { now } } : { type: 'Disable', data: { reason, now } },
  )
}

export async function createApiKey(ctx: ServiceContext, accountId: string, name: string) {
  if (name.length === 0 || name.length > 60)
    throw new DomainError('invalid_request', 'name has 1 to 60 characters.')
  const keyId = newKeyId(ctx.random)
  const secret = newSecret(ctx.random, apiKeyPrefix)
  const prefix = secret.slice(0, visiblePrefixLength)
  const { position, state } = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'CreateApiKey',
    data: { keyId, name, prefix, secretHash: hashSecret(secret), policy: keyPolicy, now: ctx.now() },
  })
  const createdAt = new Date(state.keys.get(keyId)!.createdAt).toISOString()
  return { id: keyId, name, prefix, created_at: createdAt, last_used_at: null, key: secret, position }
}

export async function revokeApiKey(ctx: ServiceContext, accountId: string, keyId: string) {
  return handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'RevokeApiKey',
    data: { keyId, now: ctx.now() },
  })
}

export async function issueConsoleToken(ctx: ServiceContext, accountId: string) {
  const tokenId = newKeyId(ctx.random)
  const secret = newSecret(ctx.random, consoleTokenPrefix)
  const { position } = await handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'IssueConsoleToken',
    data: {
      tokenId,
      prefix: secret.slice(0, visiblePrefixLength),
      secretHash: hashSecret(secret),
      expiresAt: ctx.now() + ctx.config.consoleTokenValidMs,
      now: ctx.now(),
    },
  })
  return { tokenId, token: secret, position }
}

export async function revokeConsoleToken(ctx: ServiceContext, accountId: string, tokenId: string) {
  return handleCommand(ctx.store, accountStream(accountId), accountDecider, {
    type: 'RevokeConsoleToken',
    data: { tokenId, now: ctx.now() },
  })
}
