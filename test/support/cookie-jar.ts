// A browser's cookie handling, enough for redirect flows driven by fetch: cookies by name for one
// host (browsers share a host's cookies across its ports), redirects followed by the caller.
export class CookieJar {
  readonly cookies = new Map<string, string>()

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  /** A request with the jar's cookies, no redirect following; keeps what Set-Cookie sends back. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0) headers.set('cookie', this.header())
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a),
      )
      if (expired || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  /** Follows redirects (as a browser would) until a non-redirect answer; answers it and its URL. */
  async follow(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url
    let response = await this.fetch(current, init)
    for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
      current = new URL(response.headers.get('location')!, current).toString()
      response = await this.fetch(current)
    }
    return { response, url: current }
  }
}
