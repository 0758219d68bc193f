// A sign-in in progress: what the server must remember between sending the browser off (to a passkey
// prompt, to GitHub, to an OpenID provider) and its return: the WebAuthn challenge, or the OAuth
// `state`, `nonce` and PKCE verifier, and what the person asked for (sign up with an invitation, link
// to the signed-in account, where to go after). The browser holds only a random secret in a
// short-lived HttpOnly cookie; the server keeps the rest under the secret's hash in the read store, so
// any API process can finish the flow. A flow is taken once: a replayed callback finds nothing.
import { newSecret } from '../../domain/ids.ts'
import type { Doc } from '../../projections/read-store.ts'
import { hashSecret } from '../security/secrets.ts'
import type { Services } from '../services.ts'

export const signInFlowsCollection = 'sign_in_flows'
const flowSecretPrefix = 'kiln_fl_'
/** Long enough to find a passkey or type a password at the provider; short enough to be useless later. */
export const flowLifetimeMs = 10 * 60_000
const takenPosition = Number.MAX_SAFE_INTEGER

export type FlowKind = 'passkey-register' | 'passkey-authenticate' | 'github' | 'oidc'

export interface SignInFlow {
  kind: FlowKind
  /** `github`, or the OIDC provider's id. */
  provider: string | null
  /** WebAuthn challenge, base64url. */
  challenge: string | null
  state: string | null
  nonce: string | null
  codeVerifier: string | null
  invitationCode: string | null
  /** Set when a signed-in person links this method to their account. */
  linkAccountId: string | null
  /** The account a passkey sign-up will open (the passkey's user handle). */
  newAccountId: string | null
  /** The name a passkey sign-up asked for. */
  login: string | null
  returnTo: string
}

interface FlowDoc extends Doc, SignInFlow {
  createdAt: number
  taken: boolean
}

const flows = (services: Services) => services.models.store.collection<FlowDoc>(signInFlowsCollection)

/** Remembers the flow and answers the secret for the browser's cookie. */
export async function beginFlow(services: Services, flow: SignInFlow): Promise<string> {
  const secret = newSecret(services.ctx.random, flowSecretPrefix)
  const now = services.ctx.now()
  await flows(services).putGuarded([
    { ...flow, id: hashSecret(secret), position: now, createdAt: now, taken: false },
  ])
  return secret
}

/** The flow of this kind held by the secret, spent so it cannot be used again; null when unknown, spent or stale. */
export async function takeFlow(
  services: Services,
  secret: string | null,
  kind: FlowKind,
): Promise<SignInFlow | null> {
  if (!secret?.startsWith(flowSecretPrefix) || secret.length > 80) return null
  const doc = await flows(services).get(hashSecret(secret))
  if (!doc || doc.taken || doc.kind !== kind) return null
  await flows(services).putGuarded([{ ...doc, position: takenPosition, taken: true }])
  if (services.ctx.now() - doc.createdAt > flowLifetimeMs) return null
  const { id: _id, position: _position, createdAt: _createdAt, taken: _taken, ...flow } = doc
  return flow
}
