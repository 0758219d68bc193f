// The decisions behind signing up and in, as specifications: an identity is claimed by one account
// only; linking and passkeys are events on the account; a passkey's counter may not go back;
// invitations are single-use and expire; sign-ups per address are counted in a sliding window.
import { describe, expect, it } from 'vitest'
import {
  accountDecider,
  identityClaimDecider,
  invitationDecider,
  signUpLimitDecider,
} from '../../app/deciders.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { foldAccount } from '../../domain/account/state.ts'
import { accountId, day, history, hour, open, t0 } from '../domain/account-fixtures.ts'
import { specFor } from '../support/given-when-then.ts'

const iso = (ms: number) => new Date(ms).toISOString()

const claim = (who: string, now = t0) =>
  ({ type: 'ClaimIdentity', data: { provider: 'github', subject: '583231', accountId: who, now } }) as const

describe('identity claim', () => {
  const given = specFor(identityClaimDecider)

  it('the first claim gives the identity to the account; a later claim by another account changes nothing', () => {
    const [claimed] = given([])
      .when(claim('acct_a'))
      .then([
        {
          type: 'IdentityClaimed',
          data: { provider: 'github', subject: '583231', accountId: 'acct_a', at: iso(t0) },
        },
      ])
    given([claimed!]).when(claim('acct_b')).thenNothing()
    expect(identityClaimDecider.evolve(identityClaimDecider.initialState(), claimed!).accountId).toBe(
      'acct_a',
    )
  })

  it('refuses an empty subject', () => {
    given([])
      .when({
        type: 'ClaimIdentity',
        data: { provider: 'oidc:x', subject: '', accountId: 'acct_a', now: t0 },
      })
      .thenError('invalid_request')
  })
})

describe('account: linked identities and passkeys', () => {
  const given = specFor(accountDecider)
  const link: AccountCommand = {
    type: 'LinkIdentity',
    data: { provider: 'oidc:google', subject: 'g-1', now: t0 },
  }
  const register = (counter = 0): AccountCommand => ({
    type: 'RegisterPasskey',
    data: { credentialId: 'cred-1', publicKey: 'pk', counter, transports: ['internal'], now: t0 },
  })
  const used = (counter: number) =>
    ({
      type: 'PasskeyUsed',
      data: { accountId, credentialId: 'cred-1', counter, at: iso(t0 + hour) },
    }) as const
  const use = (counter: number): AccountCommand => ({
    type: 'UsePasskey',
    data: { credentialId: 'cred-1', counter, now: t0 + hour },
  })

  it('links an identity once; a disabled or missing account cannot link', () => {
    given(history([open()]))
      .when(link)
      .then([
        { type: 'IdentityLinked', data: { accountId, provider: 'oidc:google', subject: 'g-1', at: iso(t0) } },
      ])
    given(history([open(), link]))
      .when(link)
      .thenNothing()
    given([]).when(link).thenError('not_found')
    given(history([open(), { type: 'Disable', data: { reason: 'abuse', now: t0 } }]))
      .when(link)
      .thenError('account_disabled')
  })

  it('registers a passkey with its public key, once', () => {
    given(history([open()]))
      .when(register(3))
      .then([
        {
          type: 'PasskeyRegistered',
          data: {
            accountId,
            credentialId: 'cred-1',
            publicKey: 'pk',
            counter: 3,
            transports: ['internal'],
            at: iso(t0),
          },
        },
      ])
    given(history([open(), register()]))
      .when(register())
      .thenNothing()
    expect(foldAccount(history([open(), register()])).identities.has('passkey cred-1')).toBe(true)
  })

  it('a sign-in must move the signature counter forward, unless the authenticator keeps none', () => {
    given(history([open(), register(5)]))
      .when(use(6))
      .then([used(6)])
    given(history([open(), register(5), use(6)]))
      .when(use(6))
      .thenError('unauthorized', /counter/)
    given(history([open(), register(5)]))
      .when(use(0))
      .thenError('unauthorized')
    given(history([open(), register(0), use(0)]))
      .when(use(0))
      .then([used(0)])
    given(history([open()]))
      .when(use(1))
      .thenError('unauthorized', /not registered/)
  })
})

describe('invitation', () => {
  const given = specFor(invitationDecider)
  const create = {
    type: 'CreateInvitation',
    data: { invitationId: 'inv_1', createdBy: 'ops', expiresAt: t0 + day, now: t0 },
  } as const
  const redeem = (who: string, now = t0 + hour) =>
    ({ type: 'RedeemInvitation', data: { accountId: who, now } }) as const
  const created = given([])
    .when(create)
    .then([
      {
        type: 'InvitationCreated',
        data: { invitationId: 'inv_1', createdBy: 'ops', expiresAt: iso(t0 + day), at: iso(t0) },
      },
    ])

  it('is redeemed once; a second account is refused; the same account again is a no-op', () => {
    const redeemed = given(created)
      .when(redeem('acct_a'))
      .then([
        {
          type: 'InvitationRedeemed',
          data: { invitationId: 'inv_1', accountId: 'acct_a', at: iso(t0 + hour) },
        },
      ])
    given([...created, ...redeemed])
      .when(redeem('acct_b'))
      .thenError('forbidden', /already used/)
    given([...created, ...redeemed])
      .when(redeem('acct_a'))
      .thenNothing()
  })

  it('an unknown or expired code opens nothing', () => {
    given([])
      .when(redeem('acct_a'))
      .thenError('forbidden', /not valid/)
    given(created)
      .when(redeem('acct_a', t0 + day))
      .thenError('forbidden', /expired/)
  })
})

describe('sign-ups per address', () => {
  const given = specFor(signUpLimitDecider)
  const count = (now: number) => ({ type: 'CountSignUp', data: { limit: 2, windowMs: hour, now } }) as const

  it('counts up to the limit, then 429 until the oldest leaves the window', () => {
    const counted = (at: number) => ({ type: 'SignUpCounted', data: { at: iso(at) } }) as const
    const first = given([])
      .when(count(t0))
      .then([counted(t0)])
    const second = given(first)
      .when(count(t0 + 10 * 60_000))
      .then([counted(t0 + 10 * 60_000)])
    const error = given([...first, ...second])
      .when(count(t0 + 20 * 60_000))
      .thenError('rate_limited')
    expect(error.retryAfterSeconds).toBe(40 * 60)
    given([...first, ...second])
      .when(count(t0 + hour + 1))
      .then([counted(t0 + hour + 1)])
  })
})
