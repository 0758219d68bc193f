import { describe, expect, it } from 'vitest'
import { parseAllowedUrl } from '../../app/security/allowed-url.ts'
import { DomainError } from '../../domain/errors.ts'

function refusal(url: string, policy = {}): string {
  try {
    parseAllowedUrl(url, policy)
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('url_not_allowed')
    return (error as DomainError).message
  }
  throw new Error(`${url} was allowed`)
}

describe('parseAllowedUrl', () => {
  it('accepts a public https URL and names the host to resolve', () => {
    const allowed = parseAllowedUrl('https://Files.Example.com./models/a.stl?x=1#top')
    expect(allowed.host).toBe('files.example.com')
    expect(allowed.literalAddress).toBeNull()
    expect(allowed.port).toBe(443)
    expect(allowed.url.pathname).toBe('/models/a.stl')
  })

  it('accepts a public IP literal as already vetted, IPv6 without brackets', () => {
    expect(parseAllowedUrl('https://8.8.8.8/').literalAddress).toBe('8.8.8.8')
    expect(parseAllowedUrl('https://[2606:4700::1111]:443/').literalAddress).toBe('2606:4700::1111')
  })

  it('judges integer, octal, hex and short IPv4 forms by the address the URL parser makes of them', () => {
    for (const url of [
      'https://2130706433/',
      'https://0x7f000001/',
      'https://0x7f.1/',
      'https://0177.0.0.1/',
      'https://017700000001/',
      'https://127.1/',
      'https://0x7F.0.0.0x1/',
    ]) {
      expect(refusal(url), url).toBe('The host 127.0.0.1 is loopback.')
    }
    expect(refusal('https://167772161/')).toBe('The host 10.0.0.1 is private.')
    expect(refusal('https://0xa9fea9fe/')).toBe('The host 169.254.169.254 is a cloud metadata address.')
  })

  it('judges IPv6 literals, including mapped forms in either spelling', () => {
    expect(refusal('https://[::1]/')).toBe('The host ::1 is loopback.')
    expect(refusal('https://[::ffff:127.0.0.1]/')).toBe(
      'The host ::ffff:7f00:1 is loopback (127.0.0.1 in IPv4-mapped IPv6 form).',
    )
    expect(refusal('https://[::ffff:7f00:1]/')).toMatch(/loopback/)
    expect(refusal('https://[0:0:0:0:0:ffff:c0a8:0101]/')).toMatch(/private \(192\.168\.1\.1/)
  })

  it('refuses other schemes, credentials, other ports and unparsable input', () => {
    expect(refusal('http://example.com/')).toBe('Only https URLs are allowed, not http:.')
    expect(refusal('HTTP://example.com/')).toBe('Only https URLs are allowed, not http:.')
    expect(refusal('file:///etc/passwd')).toMatch(/not file:/)
    expect(refusal('gopher://example.com/')).toMatch(/not gopher:/)
    expect(refusal('https://user@example.com/')).toBe('URLs with a user name or password are not allowed.')
    expect(refusal('https://:pw@example.com/')).toBe('URLs with a user name or password are not allowed.')
    expect(refusal('https://example.com:8443/')).toBe(
      'Port 8443 is not allowed; public URLs use the https port 443.',
    )
    expect(refusal('https://example.com:80/')).toMatch(/Port 80/)
    expect(refusal('/relative/path')).toBe('The URL is not a valid absolute URL.')
    expect(refusal('https://1.2.3.999/')).toBe('The URL is not a valid absolute URL.')
  })

  it('refuses names that only mean something inside a network, before any lookup', () => {
    for (const host of [
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      'printer.local',
      'db.internal',
      'nas',
      'router.home.arpa',
    ]) {
      expect(refusal(`https://${host}/`), host).toMatch(/^The host .* is not a public host name\.$/)
    }
    expect(refusal('https://metadata.google.internal/computeMetadata/v1/')).toBe(
      'The host metadata.google.internal is a cloud metadata service.',
    )
    expect(refusal('https://metadata.goog/')).toMatch(/cloud metadata/)
  })

  it('lets server configuration, and only that, open a port or exempt one exact address', () => {
    const policy = { allowedPorts: [8443], allowAddresses: new Set(['127.0.0.1']) }
    expect(parseAllowedUrl('https://127.0.0.1:8443/', policy).port).toBe(8443)
    expect(refusal('https://127.0.0.1:9443/', policy)).toMatch(/Port 9443/)
    // The exemption is for that spelling of that address, not for loopback in general.
    expect(refusal('https://127.0.0.2:8443/', policy)).toMatch(/loopback/)
    expect(refusal('https://[::ffff:127.0.0.1]:8443/', policy)).toMatch(/loopback/)
  })
})
