// OAuth access tokens: JWTs verified with jose against the configured issuer, audience and a JWKS
// served over HTTP. Me.auth says oauth; console-only endpoints refuse them.
import { createServer, type Server } from 'node:http'
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose'

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey']

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestAccount, type TestService } from '../support/service.ts'

const issuer = 'https://auth.example.test/'
const audience = 'kiln-api'

describe('OAuth access tokens', () => {
  let jwksServer: Server
  let service: TestService
  let hank: TestAccount
  let privateKey: KeyLike
  let otherKey: KeyLike

  const token = (claims: { sub?: string; aud?: string; iss?: string; exp?: number }, key = privateKey) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject(claims.sub ?? hank.accountId)
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? audience)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? '5m')
      .sign(key)

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256')
    privateKey = pair.privateKey
    otherKey = (await generateKeyPair('RS256')).privateKey
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ keys: [jwk] }))
    })
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
    const { port } = jwksServer.address() as { port: number }
    service = await startTestService({
      oauth: { issuer, audience, jwksUrl: `http://127.0.0.1:${port}/jwks.json`, accountClaim: 'sub' },
    })
    hank = await service.account({ credits: 5, login: 'hank' })
  })
  afterAll(async () => {
    await service?.close()
    await new Promise((resolve) => jwksServer?.close(resolve))
  })

  it('accepts a valid access token; Me reports auth oauth', async () => {
    const response = await hank.request('/v1/me', { token: await token({}) })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ id: hank.accountId, auth: 'oauth' })
  })

  it('refuses a wrong audience, a wrong issuer, an expired token, a foreign signature and an unknown account', async () => {
    const past = Math.floor(Date.now() / 1000) - 60
    for (const bad of [
      await token({ aud: 'someone-else' }),
      await token({ iss: 'https://evil.example/' }),
      await token({ exp: past }),
      await token({}, otherKey),
      await token({ sub: 'acct_nobody' }),
    ]) {
      const response = await hank.request('/v1/me', { token: bad })
      expect(response.status).toBe(401)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
    }
  })

  it('an OAuth token is not a console session', async () => {
    expect((await hank.request('/v1/keys', { token: await token({}) })).status).toBe(403)
  })
})
