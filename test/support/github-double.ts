// GitHub's OAuth web flow and the two REST endpoints sign-in reads, as a test double on a loopback
// port (GitHub's servers cannot run here). It speaks GitHub's wire format: /login/oauth/authorize
// redirects back with `code` and `state`; /login/oauth/access_token takes a form body and answers JSON
// when asked (Accept: application/json), form-encoded otherwise, and reports a bad code with HTTP 200
// and an `error` field; GET /user and GET /user/emails need `Authorization: Bearer`. The person who
// "logs in" at GitHub is whoever the test chose with signInAs().
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GitHubUser {
  id: number
  login: string
  emails: { email: string; primary: boolean; verified: boolean }[]
}

export interface GitHubDouble {
  url: string
  clientId: string
  clientSecret: string
  signInAs(user: GitHubUser): void
  /** Answer the token request form-encoded even when JSON is asked for. */
  formAnswers: boolean
  close(): Promise<void>
}

async function body(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}

export async function startGitHubDouble(): Promise<GitHubDouble> {
  const clientId = 'Iv1.testclient0001'
  const clientSecret = 'test-github-client-secret'
  let current: GitHubUser | null = null
  const codes = new Map<string, { user: GitHubUser; redirectUri: string; challenge: string | null }>()
  const tokens = new Map<string, GitHubUser>()
  const server = createServer()
  const double: GitHubDouble = {
    url: '',
    clientId,
    clientSecret,
    formAnswers: false,
    signInAs(user) {
      current = user
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }

  const json = (response: ServerResponse, status: number, value: unknown) =>
    response
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(value))

  server.on('request', async (request, response) => {
    const url = new URL(request.url ?? '/', double.url)
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? ''
      if (url.searchParams.get('client_id') !== clientId || !current)
        return response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>')
      const code = randomBytes(10).toString('hex')
      codes.set(code, { user: current, redirectUri, challenge: url.searchParams.get('code_challenge') })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      return response.writeHead(302, { location: back.toString() }).end()
    }
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await body(request))
      const grant = codes.get(form.get('code') ?? '')
      codes.delete(form.get('code') ?? '')
      const verifier = form.get('code_verifier')
      const pkceOk =
        !grant?.challenge ||
        (verifier !== null && createHash('sha256').update(verifier).digest('base64url') === grant.challenge)
      let answer: Record<string, string>
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
        answer = {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
          error_uri:
            'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials',
        }
      else if (!grant || grant.redirectUri !== form.get('redirect_uri') || !pkceOk)
        answer = {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
          error_uri:
            'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
        }
      else {
        const token = `gho_${randomBytes(18).toString('hex')}`
        tokens.set(token, grant.user)
        answer = { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' }
      }
      // GitHub reports token errors with 200 and an `error` field.
      if ((request.headers.accept ?? '').includes('application/json') && !double.formAnswers)
        return json(response, 200, answer)
      return response
        .writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' })
        .end(new URLSearchParams(answer).toString())
    }
    const token = /^(?:Bearer|token) (.+)$/.exec(request.headers.authorization ?? '')?.[1]
    const user = token ? tokens.get(token) : undefined
    if (request.method === 'GET' && (url.pathname === '/user' || url.pathname === '/user/emails')) {
      if (!user)
        return json(response, 401, {
          message: 'Requires authentication',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        })
      if (url.pathname === '/user')
        return json(response, 200, {
          login: user.login,
          id: user.id,
          node_id: `MDQ6VXNlcj${user.id}`,
          type: 'User',
          site_admin: false,
          name: null,
          email: null,
        })
      return json(
        response,
        200,
        user.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
      )
    }
    json(response, 404, {
      message: 'Not Found',
      documentation_url: 'https://docs.github.com/rest',
      status: '404',
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return double
}
