// Which IP addresses a server-side fetch may never reach. The rule is "public unicast only": a table of
// the IANA special-purpose ranges for IPv4, and for IPv6 everything outside global unicast (2000::/3)
// plus the special ranges inside it. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64,
// 6to4) are judged by the IPv4 address they carry, since that is where the packets end up.
import { isIPv4, isIPv6 } from 'node:net'

interface Range {
  bytes: Uint8Array
  bits: number
  reason: string
  /** Where an embedded IPv4 address starts, for ranges judged by the address they carry. */
  embeddedAt?: number
}

const metadata = 'a cloud metadata address'

const ipv4Ranges = [
  range('169.254.169.254/32', metadata),
  range('169.254.170.2/32', `${metadata} (container credentials)`),
  range('100.100.100.200/32', metadata),
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared carrier-grade NAT space'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved for protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved (6to4 relay anycast)'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved for benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
]

const ipv6Ranges = [
  range('fd00:ec2::254/128', metadata),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'IPv4-mapped', 12),
  range('::/96', 'IPv4-compatible', 12),
  range('64:ff9b::/96', 'NAT64', 12),
  range('64:ff9b:1::/48', 'reserved (local-use NAT64)'),
  range('2002::/16', '6to4', 2),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('2001::/23', 'reserved for protocol assignments (Teredo and others)'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('ff00::/8', 'multicast'),
]

const globalUnicast = range('2000::/3', '')

/** Why the address may not be fetched from, or null when it is public unicast. Anything unparsable is refused. */
export function forbiddenAddressReason(ip: string): string | null {
  const bytes = parseIp(ip)
  if (!bytes) return `"${ip}" is not a plain IP address`
  return bytes.length === 4 ? reasonForIpv4(bytes) : reasonForIpv6(bytes)
}

export const isForbiddenAddress = (ip: string): boolean => forbiddenAddressReason(ip) !== null

function reasonForIpv4(bytes: Uint8Array): string | null {
  return ipv4Ranges.find((candidate) => contains(candidate, bytes))?.reason ?? null
}

function reasonForIpv6(bytes: Uint8Array): string | null {
  const match = ipv6Ranges.find((candidate) => contains(candidate, bytes))
  if (match?.embeddedAt !== undefined) {
    const embedded = bytes.subarray(match.embeddedAt, match.embeddedAt + 4)
    const inner = reasonForIpv4(embedded)
    if (inner) return `${inner} (${embedded.join('.')} in ${match.reason} IPv6 form)`
    // A public address behind these prefixes is reachable, except through the deprecated compatible
    // form, which no network routes any more.
    return match.reason === 'IPv4-compatible' ? 'reserved (deprecated IPv4-compatible IPv6)' : null
  }
  if (match) return match.reason
  return contains(globalUnicast, bytes) ? null : 'reserved (not global unicast IPv6)'
}

function contains(candidate: Range, bytes: Uint8Array): boolean {
  if (candidate.bytes.length !== bytes.length) return false
  for (let bit = 0; bit < candidate.bits; bit += 8) {
    const remaining = candidate.bits - bit
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff
    if (((bytes[bit / 8] ?? 0) & mask) !== ((candidate.bytes[bit / 8] ?? 0) & mask)) return false
  }
  return true
}

function range(cidr: string, reason: string, embeddedAt?: number): Range {
  const [address = '', bits = ''] = cidr.split('/')
  const bytes = parseIp(address)
  if (!bytes) throw new Error(`Bad range ${cidr}`)
  return { bytes, bits: Number(bits), reason, embeddedAt }
}

/**
 * The bytes of a canonical IPv4 (dotted decimal, no leading zeros) or IPv6 address, or null. Zone ids
 * (fe80::1%eth0) are refused rather than parsed, so nothing can name an interface.
 */
export function parseIp(text: string): Uint8Array | null {
  if (isIPv4(text)) return Uint8Array.from(text.split('.'), Number)
  if (!isIPv6(text) || text.includes('%')) return null
  const bytes = new Uint8Array(16)
  let groups = text.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups)
  if (dotted?.[1]) {
    bytes.set(Uint8Array.from(dotted[1].split('.'), Number), 12)
    // Two placeholder groups stand in for the dotted tail, which fills the last four bytes.
    groups = `${groups.slice(0, -dotted[1].length)}0:0`
  }
  const [head = '', tail] = groups.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = 8 - headGroups.length - tailGroups.length
  const all = [...headGroups, ...Array<string>(tail === undefined ? 0 : zeros).fill('0'), ...tailGroups]
  if (all.length !== 8) return null
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16)
    if (dotted && index >= 6) return
    bytes[index * 2] = value >> 8
    bytes[index * 2 + 1] = value & 0xff
  })
  return bytes
}
