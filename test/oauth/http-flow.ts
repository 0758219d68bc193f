// The authorization code flow driven over plain HTTP, for the tests that break one step of it on
// purpose: a browser's cookie jar and redirects done by hand, a person signed in with a console token
// (the console's own sign-in endpoint) who allows on the consent page, a public client registered
// with RFC 7591, and the token endpoint called with whatever verifier or code the test chooses.
import { createHash, randomBytes } from 'node:crypto'

export interface Metadata {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  registration_endpoint: string
  revocation_endpoint: string
  code_challenge_methods_supported: string[]
  [field: string]: unknown
}

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** One browser: cookies by name (the tests' hosts are all one origin), redirects followed by hand. */
export class Browserish {
  readonly cookies = new Map<string, string>()
  readonly origin: string

  constructor(origin: string) {
    this.origin = origin
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0)
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a))
      if (gone || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  /** Follows redirects on this service; stops at the first location elsewhere (the client's redirect URI) or a page. */
  async follow(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url
    let response = await this.request(current, init)
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      const next = new URL(response.headers.get('location')!, current).href
      if (!next.startsWith(this.origin)) return { response, url: next }
      current = next
      response = await this.request(current)
    }
    return { response, url: current }
  }

  async signIn(consoleToken: string): Promise<void> {
    const response = await this.request(`${this.origin}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: this.origin },
      body: JSON.stringify({ token: consoleToken }),
    })
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`)
  }

  /** Answers the consent page the flow stopped at; returns where the server sent the browser. */
  async decide(consentUrl: string, decision: 'allow' | 'deny', origin = this.origin) {
    return this.follow(consentUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ decision }).toString(),
    })
  }
}

export async function metadataOf(baseUrl: string): Promise<Metadata> {
  return (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as Metadata
}

export async function register(metadata: Metadata, body: Record<string, unknown>) {
  const response = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
      ...body,
    }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

export const authorizationUrl = (metadata: Metadata, params: Record<string, string | undefined>) => {
  const url = new URL(metadata.authorization_endpoint)
  for (const [name, value] of Object.entries({ response_type: 'code', ...params }))
    if (value !== undefined) url.searchParams.set(name, value)
  return url.href
}

export async function tokenRequest(metadata: Metadata, params: Record<string, string | undefined>) {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) body.set(name, value)
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  return { status: response.status, body: (await response.json()) as Record<string, string | number> }
}
