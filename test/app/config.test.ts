// Every environment variable is read and checked in app/config.ts: a bad value stops start-up with a
// message that names it, all problems at once, rather than becoming NaN or a default unseen.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, generationConfig, loadConfig } from '../../app/config.ts'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig({ DATA_DIR: '/tmp/kiln-config-test', ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('configuration from the environment', () => {
  it('takes the defaults from an empty environment', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/kiln-config-test' })
    expect(config).toMatchObject({
      port: 8080,
      roles: ['api', 'worker', 'projector', 'housekeeper'],
      maxActiveJobsPerAccount: 1,
      blobsUrl: null,
      mongoDbUrl: null,
    })
  })

  it.each([
    [{ PORT: 'eighty' }, /PORT=eighty is not a whole number/],
    [{ PORT: '70000' }, /PORT=70000 must be between 0 and 65535/],
    [{ MAX_ACTIVE_JOBS: '0' }, /MAX_ACTIVE_JOBS=0 must be between 1/],
    [{ WORKER_CONCURRENCY: '2.5' }, /WORKER_CONCURRENCY=2.5 is not a whole number/],
    [{ SIGNING_SECRET: 'short' }, /SIGNING_SECRET must be at least 32 bytes/],
    [{ AT_REST_KEY: 'abc' }, /AT_REST_KEY must be 32 bytes/],
    [{ BLOBS_URL: 'https://bucket.example.com' }, /BLOBS_URL must look like s3:\/\/bucket\/prefix/],
    [{ MONGODB_URL: 'postgres://db' }, /MONGODB_URL must be a mongodb:\/\/ or mongodb\+srv:\/\/ URL/],
    [{ NATS_URL: 'not a url' }, /NATS_URL=not a url is not a URL/],
    [{ PUBLIC_URL: 'ftp://example.com' }, /PUBLIC_URL must be a http:\/\/ or https:\/\/ URL/],
    [{ ROLES: 'api,cook' }, /ROLES: unknown role cook/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ OAUTH_ISSUER: 'https://issuer.example' }, /set all three or none/],
    [{ BILLING_CATALOG: '{' }, /BILLING_CATALOG is not valid JSON/],
    [{ GENERATION_DAILY_CAPACITY: 'lots' }, /GENERATION_DAILY_CAPACITY=lots is not a whole number/],
    [{ FAL_BASE_URL: 'queue.fal.run' }, /FAL_BASE_URL=queue.fal.run is not a URL/],
    [{ GENERATION_DOWNLOAD_CA_FILE: '/nonexistent/ca.pem' }, /no file at \/nonexistent\/ca.pem/],
    [{ KILN_MESH_BACKEND: 'gpu' }, /KILN_MESH_BACKEND must be native or wasm/],
    [{ SIGNUP: 'sometimes' }, /SIGNUP must be one of open, invite, closed/],
    [{ SIGNUP_RATE_LIMIT: '0' }, /SIGNUP_RATE_LIMIT=0 must be between 1/],
    [{ GITHUB_CLIENT_ID: 'Iv1.abc' }, /GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET go together/],
    [{ OIDC_PROVIDERS: '[{' }, /OIDC_PROVIDERS is not valid JSON/],
    [
      {
        OIDC_PROVIDERS: JSON.stringify([
          { id: 'Google!', issuer: 'https://accounts.google.com', client_id: 'a', client_secret: 'b' },
        ]),
      },
      /OIDC_PROVIDERS\[0\]\[id\]: lowercase letters/,
    ],
    [
      {
        OIDC_PROVIDERS: JSON.stringify([
          { id: 'g', issuer: 'http://idp.example', client_id: 'a', client_secret: 'b' },
        ]),
      },
      /an issuer is https/,
    ],
    [
      { OIDC_PROVIDERS: JSON.stringify([{ id: 'g', issuer: 'https://idp.example', client_id: 'a' }]) },
      /OIDC_PROVIDERS\[0\]\[client_secret\]/,
    ],
  ])('%o is refused with a message naming it', (env, message) => {
    const problems = problemsOf(env)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(message)
  })

  it('reads the sign-in settings: SIGNUP, GitHub, OpenID providers and the sign-up limit', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/kiln-config-test',
      SIGNUP: 'invite',
      SIGNUP_RATE_LIMIT: '3',
      SIGNUP_RATE_WINDOW_MINUTES: '30',
      GITHUB_CLIENT_ID: 'Iv1.abc',
      GITHUB_CLIENT_SECRET: 'secret',
      OIDC_PROVIDERS: JSON.stringify([
        {
          id: 'google',
          name: 'Google',
          issuer: 'https://accounts.google.com/',
          client_id: 'a',
          client_secret: 'b',
        },
        { id: 'dev', issuer: 'http://localhost:9000', client_id: 'c', client_secret: 'd' },
      ]),
    })
    expect(config.signup).toBe('invite')
    expect(config.signupRateLimit).toEqual({ perAddress: 3, windowMs: 30 * 60_000 })
    expect(config.github).toEqual({
      clientId: 'Iv1.abc',
      clientSecret: 'secret',
      webUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    })
    expect(config.oidcProviders).toEqual([
      {
        id: 'google',
        name: 'Google',
        issuer: 'https://accounts.google.com',
        clientId: 'a',
        clientSecret: 'b',
      },
      { id: 'dev', name: 'dev', issuer: 'http://localhost:9000', clientId: 'c', clientSecret: 'd' },
    ])
    const defaults = loadConfig({ DATA_DIR: '/tmp/kiln-config-test' })
    expect(defaults).toMatchObject({ signup: 'open', github: null, oidcProviders: [] })
  })

  it('names every bad variable at once', () => {
    expect(problemsOf({ PORT: 'x', RATE_LIMIT_BURST: '-1', LEASE_TTL_MS: '5' })).toHaveLength(3)
  })

  it('stops npm start with exit code 2 and a JSON log line listing the problems', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kiln-config-'))
    try {
      const result = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'api', 'main.ts')], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: 'eighty',
          MAX_JOB_ATTEMPTS: 'many',
          LOG_LEVEL: 'info',
        },
        encoding: 'utf8',
        timeout: 30_000,
      })
      expect(result.status).toBe(2)
      const line = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { msg: string; problems: string[] }
      expect(line.msg).toMatch(/cannot start/)
      expect(line.problems).toEqual([
        'PORT=eighty is not a whole number',
        'MAX_JOB_ATTEMPTS=many is not a whole number',
      ])
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('generation providers from the environment', () => {
  it('are read in app/config.ts: keys, models, base URLs, capacity and download exemptions', () => {
    expect(
      generationConfig({
        OPENAI_API_KEY: 'sk-1',
        FAL_KEY: 'fal-1',
        FAL_BASE_URL: 'https://fal.example/',
        FAL_TEXT_TO_3D_MODEL: 'tripo',
        GENERATION_DAILY_CAPACITY: '5',
        GENERATION_RATE_LIMIT_WAIT_S: '2',
        GENERATION_DOWNLOAD_ALLOWED_PORTS: '8443, 9443',
        GENERATION_DOWNLOAD_ALLOW_ADDRESSES: '127.0.0.1',
      }),
    ).toEqual({
      openai: { apiKey: 'sk-1', model: 'gpt-image-1', baseUrl: 'https://api.openai.com/v1' },
      fal: { key: 'fal-1', baseUrl: 'https://fal.example', pollIntervalMs: 1000 },
      falModels: { image: null, textTo3d: 'tripo', imageTo3d: null, imageTo3dInputField: 'image_url' },
      dailyCapacity: 5,
      rateLimitWaitMs: 2000,
      download: {
        maxBytes: 200 * 1024 * 1024,
        timeoutMs: 120_000,
        allowedPorts: [8443, 9443],
        allowAddresses: new Set(['127.0.0.1']),
        caFile: null,
      },
    })
  })

  it('unset means no provider and unlimited capacity', () => {
    const none = generationConfig({})
    expect([none.openai, none.fal, none.dailyCapacity]).toEqual([null, null, null])
  })
})
