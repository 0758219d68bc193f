// Passkeys (WebAuthn) through @simplewebauthn/server: the relying party is PUBLIC_URL (its host is the
// rpID, its origin the only origin accepted), so passkeys work on the embedded default with nothing
// configured. Registration both signs a person up (a new account, the passkey's user handle being the
// new account's id) and adds a passkey to a signed-in account. Sign-in uses discoverable credentials:
// the browser offers the passkeys it has for this site, and the credential id finds the account.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { accountStream } from '../../domain/account/events.ts'
import { DomainError } from '../../domain/errors.ts'
import { findPasskey, listPasskeys } from '../../projections/passkeys/queries.ts'
import { accountDecider } from '../deciders.ts'
import { handleCommand } from '../handle-command.ts'
import type { Services } from '../services.ts'
import type { PasskeyRecord } from './sign-up.ts'

const relyingParty = (services: Services) => {
  const url = new URL(services.ctx.config.publicUrl)
  return { rpID: url.hostname, origin: url.origin }
}

const refused = (message: string) =>
  new DomainError('unauthorized', message, { hint: 'Try again, or sign in another way.' })

/** Options for the browser to create a passkey for `userId` (the account's id, or the one a sign-up will open). */
export async function registrationOptions(
  services: Services,
  { userId, userName, exclude }: { userId: string; userName: string; exclude: string[] },
) {
  return generateRegistrationOptions({
    rpName: 'kiln',
    rpID: relyingParty(services).rpID,
    userName,
    userID: new TextEncoder().encode(userId),
    attestationType: 'none',
    excludeCredentials: exclude.map((id) => ({ id })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  })
}

/** The account's passkeys' ids, so a browser does not register the same authenticator twice. */
export async function passkeyIdsOf(services: Services, accountId: string): Promise<string[]> {
  return (await listPasskeys(services.models, accountId)).map((passkey) => passkey.id)
}

/** Verifies the browser's new passkey against the flow's challenge; answers its id and public half. */
export async function verifyRegistration(
  services: Services,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<{ credentialId: string; passkey: PasskeyRecord }> {
  const { rpID, origin } = relyingParty(services)
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: false,
  }).catch(() => null)
  if (!verification?.verified) throw refused('The passkey could not be verified.')
  const { credential } = verification.registrationInfo
  return {
    credentialId: credential.id,
    passkey: {
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
    },
  }
}

export async function authenticationOptions(services: Services) {
  return generateAuthenticationOptions({ rpID: relyingParty(services).rpID, userVerification: 'preferred' })
}

/**
 * Verifies a sign-in assertion against the flow's challenge and the registered public key, records
 * the new signature counter (`PasskeyUsed`), and answers the account it signs in to.
 */
export async function verifyAuthentication(
  services: Services,
  response: AuthenticationResponseJSON,
  challenge: string,
): Promise<string> {
  const passkey = await findPasskey(services.models, response.id)
  if (!passkey) throw refused('This passkey is not registered here; sign up with it first.')
  const { rpID, origin } = relyingParty(services)
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: false,
    credential: {
      id: passkey.credentialId,
      publicKey: Buffer.from(passkey.publicKey, 'base64url'),
      counter: passkey.counter,
      transports: passkey.transports,
    },
  }).catch(() => null)
  if (!verification?.verified) throw refused('The passkey could not be verified.')
  await handleCommand(services.ctx.store, accountStream(passkey.accountId), accountDecider, {
    type: 'UsePasskey',
    data: {
      credentialId: passkey.credentialId,
      counter: verification.authenticationInfo.newCounter,
      now: services.ctx.now(),
    },
  })
  return passkey.accountId
}
