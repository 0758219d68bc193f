// "Sign in with GitHub": GitHub's OAuth web flow (github.com/login/oauth/authorize, then
// /login/oauth/access_token), then GET /user and GET /user/emails on the REST API. GitHub is not an
// OpenID provider (no ID token, no nonce); `state` and the PKCE verifier tie the callback to the
// browser that started. The person is GitHub's numeric user id (a login can be renamed and reused);
// the e-mail is the primary address only when GitHub says it is verified.
// The random values and the S256 challenge come from openid-client, as for OpenID providers.
import * as client from 'openid-client'
import { DomainError } from '../../domain/errors.ts'
import type { Config } from '../config.ts'
import type { NewAccountProfile } from './sign-up.ts'

type GitHubConfig = NonNullable<Config['github']>

const apiHeaders = (token: string) => ({
  accept: 'application/vnd.github+json',
  authorization: `Bearer ${token}`,
  'x-github-api-version': '2022-11-28',
  'user-agent': 'kiln-sign-in',
})

const failed = (message: string) =>
  new DomainError('invalid_request', `Signing in with GitHub did not work: ${message}`, {
    hint: 'Start the sign-in again.',
  })

/** Where to send the browser, and the secrets the callback must present again (`state`, PKCE verifier). */
export async function gitHubAuthorizationUrl(
  github: GitHubConfig,
  redirectUri: string,
): Promise<{ url: string; state: string; codeVerifier: string }> {
  const state = client.randomState()
  const codeVerifier = client.randomPKCECodeVerifier()
  const url = new URL(`${github.webUrl}/login/oauth/authorize`)
  url.search = new URLSearchParams({
    client_id: github.clientId,
    redirect_uri: redirectUri,
    scope: 'read:user user:email',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).toString()
  return { url: url.toString(), state, codeVerifier }
}

/** GitHub answers the token request as JSON when asked, form-encoded otherwise, and errors with 200. */
async function readTokenAnswer(response: Response): Promise<Record<string, string>> {
  const text = await response.text()
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    const parsed = JSON.parse(text) as unknown
    if (typeof parsed !== 'object' || parsed === null) throw failed('the token answer was not an object.')
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]))
  }
  return Object.fromEntries(new URLSearchParams(text))
}

async function exchangeCode(
  github: GitHubConfig,
  { code, redirectUri, codeVerifier }: { code: string; redirectUri: string; codeVerifier: string },
): Promise<string> {
  const response = await fetch(`${github.webUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: github.clientId,
      client_secret: github.clientSecret,
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    }),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => {
    throw new DomainError('upstream_failed', 'GitHub could not be reached; try again.')
  })
  if (!response.ok) throw new DomainError('upstream_failed', `GitHub answered ${response.status}; try again.`)
  const answer = await readTokenAnswer(response).catch((error: unknown) => {
    throw error instanceof DomainError ? error : failed('the token answer could not be read.')
  })
  if (answer.error) throw failed(`${answer.error_description ?? answer.error}.`)
  if (!answer.access_token) throw failed('GitHub sent no access token.')
  return answer.access_token
}

async function getJson(github: GitHubConfig, path: string, token: string): Promise<unknown> {
  const response = await fetch(`${github.apiUrl}${path}`, {
    headers: apiHeaders(token),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => {
    throw new DomainError('upstream_failed', 'GitHub could not be reached; try again.')
  })
  if (!response.ok)
    throw new DomainError('upstream_failed', `GitHub answered ${response.status} for ${path}.`)
  return response.json()
}

/** Exchanges the callback's code and answers who signed in: GitHub's user id, login and verified e-mail. */
export async function gitHubUser(
  github: GitHubConfig,
  callback: { code: string; redirectUri: string; codeVerifier: string },
): Promise<{ subject: string; profile: NewAccountProfile }> {
  const token = await exchangeCode(github, callback)
  const user = (await getJson(github, '/user', token)) as { id?: unknown; login?: unknown }
  if (typeof user.id !== 'number' || typeof user.login !== 'string') throw failed('GitHub sent no user.')
  const emails = (await getJson(github, '/user/emails', token)) as {
    email?: unknown
    primary?: unknown
    verified?: unknown
  }[]
  const primary = Array.isArray(emails)
    ? emails.find(
        (entry) => entry.primary === true && entry.verified === true && typeof entry.email === 'string',
      )
    : undefined
  return {
    subject: String(user.id),
    profile: { login: user.login, email: (primary?.email as string | undefined) ?? null },
  }
}
