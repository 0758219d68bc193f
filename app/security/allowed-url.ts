// The first gate for a URL a caller asks us to fetch: scheme, credentials, port and host, checked on
// the WHATWG-parsed form. Parsing first matters: the parser turns "2130706433", "0x7f.1" and
// "0177.0.0.1" into 127.0.0.1 and "[::ffff:127.0.0.1]" into "[::ffff:7f00:1]", and those normalised
// forms are also what a connection would use.
import { isIP } from 'node:net'
import { DomainError } from '../../domain/errors.ts'
import { forbiddenAddressReason } from './forbidden-address.ts'

export interface AllowedUrl {
  url: URL
  /** Host without IPv6 brackets or a trailing dot: what DNS, SNI and certificate checks see. */
  host: string
  /** The host when it is an IP literal (already vetted), else null: a name still to be resolved. */
  literalAddress: string | null
  port: number
}

export interface UrlPolicy {
  /** Ports besides 443 that may be named. Server configuration only. */
  allowedPorts?: readonly number[]
  /** Addresses exempt from the forbidden ranges: tests against 127.0.0.1. Server configuration only. */
  allowAddresses?: ReadonlySet<string>
}

// Names that only mean something inside a network; resolving them at all would ask the local resolver
// about private infrastructure.
const privateSuffixes = ['localhost', 'local', 'localdomain', 'internal', 'intranet', 'lan', 'home.arpa']
const metadataNames = new Set(['metadata.google.internal', 'metadata.goog'])

export function parseAllowedUrl(input: string, policy: UrlPolicy = {}): AllowedUrl {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw refused('The URL is not a valid absolute URL.')
  }
  if (url.protocol !== 'https:') throw refused(`Only https URLs are allowed, not ${url.protocol}.`)
  if (url.username !== '' || url.password !== '')
    throw refused('URLs with a user name or password are not allowed.')
  const port = url.port === '' ? 443 : Number(url.port)
  if (port !== 443 && !policy.allowedPorts?.includes(port)) {
    throw refused(`Port ${port} is not allowed; public URLs use the https port 443.`)
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  if (isIP(host) !== 0) {
    const reason = addressRefusal(host, policy.allowAddresses)
    if (reason) throw refused(`The host ${host} is ${reason}.`)
    return { url, host, literalAddress: host, port }
  }
  if (metadataNames.has(host)) throw refused(`The host ${host} is a cloud metadata service.`)
  if (
    !host.includes('.') ||
    privateSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))
  ) {
    throw refused(`The host ${host} is not a public host name.`)
  }
  return { url, host, literalAddress: null, port }
}

/** Why an address may not be connected to under this policy, or null. */
export function addressRefusal(address: string, allowAddresses?: ReadonlySet<string>): string | null {
  if (allowAddresses?.has(address)) return null
  return forbiddenAddressReason(address)
}

const refused = (message: string) => new DomainError('url_not_allowed', message)
