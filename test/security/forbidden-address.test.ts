import { describe, expect, it } from 'vitest'
import { forbiddenAddressReason, isForbiddenAddress, parseIp } from '../../app/security/forbidden-address.ts'

describe('isForbiddenAddress', () => {
  const forbidden: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared carrier-grade NAT space'],
    ['100.127.255.255', 'shared carrier-grade NAT space'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.170.2', 'a cloud metadata address (container credentials)'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['0.1.2.3', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved for protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'reserved for benchmarking'],
    ['192.88.99.1', 'reserved (6to4 relay anycast)'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'reserved for protocol assignments (Teredo and others)'],
    ['64:ff9b:1::1', 'reserved (local-use NAT64)'],
    ['fec0::1', 'reserved (not global unicast IPv6)'],
    ['100::1', 'reserved (not global unicast IPv6)'],
    ['::ffff:127.0.0.1', 'loopback (127.0.0.1 in IPv4-mapped IPv6 form)'],
    ['::ffff:7f00:1', 'loopback (127.0.0.1 in IPv4-mapped IPv6 form)'],
    ['::FFFF:A9FE:A9FE', 'a cloud metadata address (169.254.169.254 in IPv4-mapped IPv6 form)'],
    ['::127.0.0.1', 'loopback (127.0.0.1 in IPv4-compatible IPv6 form)'],
    ['::a00:1', 'private (10.0.0.1 in IPv4-compatible IPv6 form)'],
    ['::8.8.8.8', 'reserved (deprecated IPv4-compatible IPv6)'],
    ['64:ff9b::192.168.0.1', 'private (192.168.0.1 in NAT64 IPv6 form)'],
    ['64:ff9b::7f00:1', 'loopback (127.0.0.1 in NAT64 IPv6 form)'],
    ['2002:a9fe:a9fe::1', 'a cloud metadata address (169.254.169.254 in 6to4 IPv6 form)'],
    ['2002:c0a8:101::', 'private (192.168.1.1 in 6to4 IPv6 form)'],
  ]

  it.each(forbidden)('refuses %s as %s', (ip, reason) => {
    expect(forbiddenAddressReason(ip)).toBe(reason)
    expect(isForbiddenAddress(ip)).toBe(true)
  })

  it('refuses anything that is not one plain, canonical address', () => {
    for (const text of [
      '',
      'localhost',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '127.1',
      '[::1]',
      'fe80::1%eth0',
      '1.2.3.4 ',
    ]) {
      expect(forbiddenAddressReason(text), text).toBe(`"${text}" is not a plain IP address`)
    }
  })

  it('allows public unicast addresses, including public IPv4 behind mapped, NAT64 and 6to4 prefixes', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '169.253.255.255',
      '223.255.255.255',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(forbiddenAddressReason(ip), ip).toBeNull()
      expect(isForbiddenAddress(ip)).toBe(false)
    }
  })
})

describe('parseIp', () => {
  it('expands IPv6 shorthand and embedded dotted quads to 16 bytes', () => {
    expect([...(parseIp('2001:db8::1') ?? [])]).toEqual([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1])
    expect([...(parseIp('::ffff:1.2.3.4') ?? [])]).toEqual([...Array(10).fill(0), 0xff, 0xff, 1, 2, 3, 4])
    expect([...(parseIp('1:2:3:4:5:6:7:8') ?? [])]).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
    expect([...(parseIp('1::') ?? [])]).toEqual([0, 1, ...Array(14).fill(0)])
    expect([...(parseIp('10.20.30.40') ?? [])]).toEqual([10, 20, 30, 40])
  })
})
