// Rate limits over a real port: the RateLimit and RateLimit-Policy fields on every authenticated
// answer (draft-ietf-httpapi-ratelimit-headers-11), the per-credential and per-address buckets on
// REST and on the console's tRPC, the per-address limit on invalid keys, X-Forwarded-For believed
// only from configured proxies, and revocation taking effect on the next request while credentials
// are cached.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { registerConsole } from '../../api/console/plugin.ts'
import { registerMcp } from '../../api/mcp/plugin.ts'
import { setAccountEnabled } from '../../app/accounts.ts'
import { type Config, ConfigError, loadConfig } from '../../app/config.ts'
import { startTestService, type TestService } from '../support/service.ts'

/** One member of a structured-field list (RFC 9651): a string item and its integer parameters. */
interface Member {
  name: string
  params: Record<string, number>
}

function parseList(field: string | null): Member[] {
  if (field === null) throw new Error('field missing')
  return field.split(/\s*,\s*/).map((member) => {
    const [item = '', ...params] = member.split(';')
    const name = /^"([^"\\]*)"$/.exec(item.trim())?.[1]
    if (name === undefined) throw new Error(`not a string item: ${item}`)
    const parsed: Record<string, number> = {}
    for (const param of params) {
      const match = /^([a-z*][a-z0-9_.*-]*)=(-?\d{1,15})$/.exec(param.trim())
      if (!match) throw new Error(`not an integer parameter: ${param}`)
      parsed[match[1]!] = Number(match[2])
    }
    return { name, params: parsed }
  })
}

const member = (members: Member[], name: string) => {
  const found = members.find((m) => m.name === name)
  if (!found) throw new Error(`no ${name} in ${JSON.stringify(members)}`)
  return found.params
}

const invalidKey = (i: number) => `kiln_${String(i).padStart(43, 'x')}`

let service: TestService | undefined
afterEach(async () => {
  await service?.close()
  service = undefined
})

async function start(overrides: Partial<Config>) {
  service = await startTestService(overrides, {
    consumeJobs: false,
    plugins: [registerConsole, (app) => registerMcp(app, app.services)],
  })
  return service
}

describe('TRUST_PROXY', () => {
  const env = { DATA_DIR: '/tmp/kiln-config-test' }
  it('trusts no proxy by default, and takes addresses, CIDRs and range names', () => {
    expect(loadConfig(env).trustProxy).toEqual([])
    expect(loadConfig({ ...env, TRUST_PROXY: '10.0.0.0/8, ::1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ])
  })
  it.each(['everyone', '10.0.0.0/33', '10.0.0.1/8/2', 'true'])('refuses %s', (entry) => {
    expect(() => loadConfig({ ...env, TRUST_PROXY: entry })).toThrow(ConfigError)
  })
})

describe('RateLimit fields', () => {
  it('every authenticated answer carries RateLimit-Policy and RateLimit; r falls by one per request; the 429 carries Retry-After', async () => {
    const s = await start({ rateLimit: { perSecond: 1, burst: 5 } })
    const ada = await s.account({ login: 'ada' })
    const remaining: number[] = []
    let limited: Response | null = null
    for (let i = 0; i < 7 && !limited; i++) {
      const response = await ada.request('/v1/me')
      if (response.status === 429) {
        limited = response
        break
      }
      await response.arrayBuffer()
      expect(response.status).toBe(200)
      const policy = parseList(response.headers.get('ratelimit-policy'))
      expect(member(policy, 'credential')).toEqual({ q: 5, w: 5 })
      expect(member(policy, 'address').q).toBeGreaterThan(0)
      const limit = member(parseList(response.headers.get('ratelimit')), 'credential')
      expect(limit.t).toBeGreaterThanOrEqual(1)
      remaining.push(limit.r!)
    }
    // One request a second refills: within this loop at most one token comes back.
    expect(remaining[0]).toBe(4)
    for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBeLessThan(remaining[i - 1]! + 1)
    expect(remaining.at(-1)).toBeLessThanOrEqual(1)
    expect(limited?.status).toBe(429)
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(member(parseList(limited!.headers.get('ratelimit')), 'credential').r).toBe(0)
    expect(((await limited!.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  })

  it('error answers after authentication carry them too', async () => {
    const s = await start({})
    const ada = await s.account({ login: 'ada' })
    const missing = await ada.request('/v1/jobs/j_00000000000000000000000000')
    expect(missing.status).toBe(404)
    expect(member(parseList(missing.headers.get('ratelimit')), 'credential').r).toBeGreaterThan(0)
  })
})

describe('per-address limits', () => {
  it('invalid keys are limited per client address: a brute-force gets 429, and so does a valid key from that address', async () => {
    const s = await start({ authFailureLimit: { perSecond: 1 / 60, burst: 5 } })
    const ada = await s.account({ login: 'ada' })
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      const response = await ada.request('/v1/me', { token: invalidKey(i) })
      statuses.push(response.status)
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
      await response.arrayBuffer()
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429])
    // No oracle: while the address is limited, the answer is the same whatever is presented.
    expect((await ada.request('/v1/me')).status).toBe(429)
    // MCP shares the bucket.
    const mcp = await ada.request('/mcp', {
      method: 'POST',
      token: invalidKey(99),
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    expect(mcp.status).toBe(429)
  })

  it('a spoofed X-Forwarded-For does not escape the per-address limit when no proxy is trusted', async () => {
    const s = await start({ addressRateLimit: { perSecond: 1, burst: 4 } })
    const ada = await s.account({ login: 'ada' })
    const bob = await s.account({ login: 'bob' })
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      // Two credentials, a fresh forwarded address each time: only the connection's address counts.
      const who = i % 2 === 0 ? ada : bob
      const response = await who.request('/v1/me', { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200])
    expect(statuses.slice(4)).toContain(429)
  })

  it('X-Forwarded-For from a configured proxy names the client', async () => {
    const s = await start({ addressRateLimit: { perSecond: 1, burst: 2 }, trustProxy: ['127.0.0.1'] })
    const ada = await s.account({ login: 'ada' })
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const response = await ada.request('/v1/me', { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    expect(statuses).toEqual([200, 200, 200, 200])
  })
})

describe('console tRPC limits', () => {
  const me = (s: TestService, token: string) =>
    fetch(`${s.baseUrl}/internal/trpc/me`, { headers: { authorization: `Bearer ${token}` } })

  it('per credential: concurrent calls past the burst get 429 with Retry-After', async () => {
    const s = await start({ rateLimit: { perSecond: 1, burst: 10 } })
    const ada = await s.account({ login: 'ada' })
    const answers = await Promise.all(Array.from({ length: 30 }, () => me(s, ada.consoleToken)))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(11)
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(19)
    const limited = answers.find((a) => a.status === 429)!
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(member(parseList(limited.headers.get('ratelimit')), 'credential').r).toBe(0)
    const ok = answers.find((a) => a.status === 200)!
    expect(member(parseList(ok.headers.get('ratelimit-policy')), 'credential').q).toBe(10)
    await Promise.all(answers.map((a) => a.arrayBuffer()))
  })

  it('per client address, across credentials', async () => {
    const s = await start({ addressRateLimit: { perSecond: 1, burst: 6 } })
    const tokens = [
      (await s.account({ login: 'ada' })).consoleToken,
      (await s.account({ login: 'bob' })).consoleToken,
    ]
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => me(s, tokens[i % 2]!)))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5)
    await Promise.all(answers.map((a) => a.arrayBuffer()))
  })

  it('wrong console tokens and session cookies count as failed authentications of the address', async () => {
    const s = await start({ authFailureLimit: { perSecond: 1 / 60, burst: 3 } })
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await me(s, invalidKey(i))).status)
    const cookie = await fetch(`${s.baseUrl}/internal/trpc/me`, { headers: { cookie: 'kiln_session=guess' } })
    statuses.push(cookie.status)
    expect(statuses).toEqual([401, 401, 401, 429])
  })
})

describe('cached credentials', () => {
  it('a revoked key is refused on the very next request, and a disabled account too', async () => {
    const s = await start({})
    const ada = await s.account({ login: 'ada' })
    const created = await ada.request('/v1/keys', {
      method: 'POST',
      token: ada.consoleToken,
      json: { name: 'second' },
    })
    const key = (await created.json()) as { id: string; key: string }
    // Used twice: the second answer comes from the cache.
    expect((await ada.request('/v1/me', { token: key.key })).status).toBe(200)
    expect((await ada.request('/v1/me', { token: key.key })).status).toBe(200)
    expect(s.services.credentials.get(`account:${ada.accountId}`)).toBe(true)
    const revoked = await ada.request(`/v1/keys/${key.id}`, { method: 'DELETE', token: ada.consoleToken })
    expect(revoked.status).toBe(200)
    const after = await ada.request('/v1/me', { token: key.key })
    expect(after.status).toBe(401)

    expect((await ada.request('/v1/me')).status).toBe(200)
    const { position } = await setAccountEnabled(s.services.ctx, ada.accountId, false)
    await s.services.waitForPosition(position)
    const disabled = await ada.request('/v1/me')
    expect([disabled.status, ((await disabled.json()) as { error: { code: string } }).error.code]).toEqual([
      403,
      'account_disabled',
    ])
  })
})

afterAll(async () => {
  await service?.close()
})
