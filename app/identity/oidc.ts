// Sign-in with any configured OpenID Connect provider (OIDC_PROVIDERS) through openid-client:
// discovery from the issuer, authorization code flow with PKCE (S256), `state` and `nonce` checked by
// the library against what the flow remembered, ID token validated (issuer, audience, signature,
// expiry, nonce). The person is the provider's `sub`; the e-mail is kept only when the provider says
// `email_verified: true`.
import * as client from 'openid-client'
import { DomainError } from '../../domain/errors.ts'
import type { OidcProviderConfig } from '../config.ts'
import type { NewAccountProfile } from './sign-up.ts'

const loopback = new Set(['localhost', '127.0.0.1', '[::1]'])
/** Discovered provider metadata, per issuer and client (a failed discovery is tried again next time). */
const configurations = new Map<string, Promise<client.Configuration>>()

function configurationOf(provider: OidcProviderConfig): Promise<client.Configuration> {
  const key = `${provider.issuer}\n${provider.clientId}`
  let configuration = configurations.get(key)
  if (!configuration) {
    const issuer = new URL(provider.issuer)
    configuration = client.discovery(issuer, provider.clientId, provider.clientSecret, undefined, {
      // Plain http only for a provider on this machine (a development or test provider).
      execute:
        issuer.protocol === 'http:' && loopback.has(issuer.hostname) ? [client.allowInsecureRequests] : [],
      timeout: 10,
    })
    configurations.set(key, configuration)
    configuration.catch(() => configurations.delete(key))
  }
  return configuration.catch(() => {
    throw new DomainError('upstream_failed', `${provider.name} could not be reached; try again later.`)
  })
}

export interface OidcStart {
  url: string
  state: string
  nonce: string
  codeVerifier: string
}

/** Where to send the browser, and the secrets the callback must present again. */
export async function oidcAuthorizationUrl(
  provider: OidcProviderConfig,
  redirectUri: string,
): Promise<OidcStart> {
  const configuration = await configurationOf(provider)
  const codeVerifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  })
  return { url: url.toString(), state, nonce, codeVerifier }
}

/** Every message along the error's causes (openid-client wraps what oauth4webapi found). */
function messagesOf(error: unknown): string {
  const parts: string[] = []
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Error) parts.push(e.message)
    const claim = (e as { claim?: unknown }).claim
    if (typeof claim === 'string') parts.push(claim)
  }
  return parts.join(' ')
}

/** A short reason for the person, never the library's internals. */
function reasonOf(error: unknown): string {
  const messages = messagesOf(error)
  if (/"state"|\bstate\b/i.test(messages))
    return 'the sign-in did not start in this browser (state mismatch).'
  if (/nonce/i.test(messages)) return 'the provider answered for another sign-in (nonce mismatch).'
  const providerError = (error as { error?: unknown }).error
  if (typeof providerError === 'string') return `the provider said ${providerError.slice(0, 100)}.`
  const code = (error as { code?: unknown }).code
  return typeof code === 'string'
    ? `the provider's answer was refused (${code}).`
    : "the provider's answer was refused."
}

/**
 * Finishes the flow from the callback URL: the code exchanged with the PKCE verifier, `state` and the
 * ID token's `nonce` compared with the flow's; answers who signed in.
 */
export async function oidcUser(
  provider: OidcProviderConfig,
  callbackUrl: URL,
  flow: { state: string; nonce: string; codeVerifier: string },
): Promise<{ subject: string; profile: NewAccountProfile }> {
  const configuration = await configurationOf(provider)
  let claims: client.IDToken
  let userInfo: client.UserInfoResponse | null = null
  try {
    const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    })
    claims = tokens.claims()!
    // Providers may keep e-mail and profile claims out of the ID token and answer them at userinfo.
    if (configuration.serverMetadata().userinfo_endpoint)
      userInfo = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub)
  } catch (error) {
    throw new DomainError(
      'invalid_request',
      `Signing in with ${provider.name} did not work: ${reasonOf(error)}`,
      {
        hint: 'Start the sign-in again.',
      },
    )
  }
  const merged: Record<string, unknown> = { ...userInfo, ...claims }
  const email = typeof merged.email === 'string' && merged.email_verified === true ? merged.email : null
  const login =
    [merged.preferred_username, merged.nickname, email?.split('@')[0], merged.name].find(
      (value): value is string => typeof value === 'string' && value.length > 0,
    ) ?? `${provider.id}-user`
  return { subject: claims.sub, profile: { login: login.slice(0, 60), email } }
}
