// Service configuration, from the environment. One place that knows every variable.
import { existsSync, readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { z } from 'zod'

export const roles = ['api', 'worker', 'projector', 'housekeeper'] as const
export type Role = (typeof roles)[number]

export interface Config {
  /** What this process does (ROLES): serve the API, run jobs, write read models, keep house. */
  roles: Role[]
  /** How long a duty's lease (projector, housekeeper) lasts without renewal; takeover time after a death. */
  leaseTtlMs: number
  /** /ready answers 503 while a read model is more than this many store positions behind the head. */
  readyMaxLag: number
  /** When set, /metrics asks for it as a Bearer token; otherwise keep /metrics on a private network. */
  metricsToken: string | null
  port: number
  host: string
  dataDir: string
  publicUrl: string
  /** HMAC secret for signed upload and download URLs. */
  signingSecret: string
  kurrentDbUrl: string | null
  mongoDbUrl: string | null
  natsUrl: string | null
  /** `s3://bucket/prefix`: blobs in an S3-compatible bucket (AWS SDK settings from the environment). */
  blobsUrl: string | null
  /** Base64url of 32 bytes: the at-rest key of secret outputs, shared by every process (else generated into DATA_DIR). */
  atRestKey: string | null
  workerConcurrency: number
  /** Job child processes kept booted and idle, each waiting for its one job (0: fork per job). */
  warmChildren: number
  /** 503 busy above this many jobs waiting. */
  maxQueuedJobs: number
  maxActiveJobsPerAccount: number
  uploadMaxBytes: number
  /**
   * HTTP timeouts: a whole request (headers and body) must arrive within requestMs; a socket silent
   * for idleMs is closed (above MCP_WAIT_MS, whose calls may say nothing while they wait); keepAliveMs
   * is how long an idle keep-alive connection stays open between requests.
   */
  httpTimeouts: { requestMs: number; idleMs: number; keepAliveMs: number }
  /**
   * Signed upload PUTs need no key, so they have limits of their own: a minimum body rate once the
   * grace period is over, one PUT at a time per upload, a number at a time per client address, and a
   * request rate per client address.
   */
  signedPuts: {
    minBytesPerSecond: number
    graceMs: number
    concurrentPerAddress: number
    perSecond: number
    burst: number
  }
  /** Per account: upload URLs waiting for their PUT, and bytes kept (uploads, job inputs and outputs). */
  storageLimits: { pendingUploads: number; storedBytes: number }
  uploadUrlValidMs: number
  outputRetentionMs: number
  signupCredits: number
  signupCreditsValidMs: number
  forgottenKeyMs: number
  maxJobAttempts: number
  /** How long past its time limit a running job may stay silent before it is considered lost. */
  stuckJobGraceMs: number
  /** OAuth access tokens (JWT) are accepted when an issuer, audience and JWKS URL are configured. */
  oauth: { issuer: string; audience: string; jwksUrl: string; accountClaim: string } | null
  /** Requests per second per credential, and the burst allowed above it. */
  rateLimit: { perSecond: number; burst: number }
  /** Requests per second per client address (authenticated REST, MCP and console calls), and the burst. */
  addressRateLimit: { perSecond: number; burst: number }
  /** Failed authentications (invalid key, token or session) per client address: the rate and the burst. */
  authFailureLimit: { perSecond: number; burst: number }
  /**
   * The proxies whose X-Forwarded-For is believed (addresses, CIDRs, or proxy-addr's names loopback,
   * linklocal, uniquelocal); empty: none, the client address is the connection's.
   */
  trustProxy: string[]
  /** Stripe; billing is unavailable (catalog `available: false`) without it. */
  stripe: { secretKey: string; webhookSecret: string; apiBase: string | null } | null
  /** JSON array of catalog items replacing the default packs and bundles. */
  billingCatalog: string | null
  /** How long an MCP tool call waits for its job before returning it still running (well under 60 s). */
  mcpWaitMs: number
  /** Web origins besides PUBLIC_URL's that browser-based MCP clients may call /mcp from. */
  mcpAllowedOrigins: string[]
  /** Console sessions: ended after this long without a request, and after this long in any case. */
  consoleSession: { idleMs: number; absoluteMs: number }
  /** How long an operator's console token works after it is issued. */
  consoleTokenValidMs: number
  /** This server's own OAuth 2.1 authorization server (api/oauth): token and code lifetimes. */
  authorizationServer: {
    accessTokenTtlSeconds: number
    refreshTokenTtlSeconds: number
    authorizationCodeTtlSeconds: number
    /** How long a fetched Client ID Metadata Document is trusted, within what its Cache-Control says. */
    clientMetadataCacheSeconds: { min: number; max: number }
  }
  /** Who may open an account by signing in: anyone, holders of an invitation code, or nobody. */
  signup: SignUpMode
  /** New accounts per client address within the window; more get 429. */
  signupRateLimit: { perAddress: number; windowMs: number }
  /** How long an operator's invitation code can be redeemed. */
  invitationValidMs: number
  /** "Sign in with GitHub" (an OAuth app); the base URLs point elsewhere only in tests. */
  github: { clientId: string; clientSecret: string; webUrl: string; apiUrl: string } | null
  /** OpenID Connect providers people may sign in with, in the order the sign-in page lists them. */
  oidcProviders: OidcProviderConfig[]
  webhooks: WebhookConfig
  /** Price quotes per second per credential, and the burst allowed above it (quotes measure inputs for free). */
  quoteRateLimit: { perSecond: number; burst: number }
}

export const signUpModes = ['open', 'invite', 'closed'] as const
export type SignUpMode = (typeof signUpModes)[number]

export interface OidcProviderConfig {
  /** Short name in URLs and in the `oidc:<id>` identity: lowercase letters, digits and dashes. */
  id: string
  /** What the sign-in button says. */
  name: string
  issuer: string
  clientId: string
  clientSecret: string
}

const oidcProvidersSchema = z
  .array(
    z.strictObject({
      id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'lowercase letters, digits and dashes, up to 32'),
      name: z.string().min(1).max(60).optional(),
      issuer: z.url({ protocol: /^https?$/ }),
      client_id: z.string().min(1).max(500),
      client_secret: z.string().min(1).max(2000),
    }),
  )
  .max(20)
  .refine((list) => new Set(list.map((p) => p.id)).size === list.length, 'each id may appear once')
  .refine(
    (list) => list.every((p) => p.issuer.startsWith('https:') || isLoopbackUrl(p.issuer)),
    'an issuer is https (plain http only on localhost, for development)',
  )

function isLoopbackUrl(url: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname)
}

/** OIDC_PROVIDERS: a JSON array of {id, name?, issuer, client_id, client_secret}. */
function parseOidcProviders(read: EnvReader): OidcProviderConfig[] {
  const value = read.text('OIDC_PROVIDERS')
  if (value === null) return []
  let json: unknown
  try {
    json = JSON.parse(value)
  } catch {
    read.problems.push('OIDC_PROVIDERS is not valid JSON')
    return []
  }
  const parsed = oidcProvidersSchema.safeParse(json)
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 5))
      read.problems.push(
        `OIDC_PROVIDERS${issue.path.map((p) => `[${String(p)}]`).join('')}: ${issue.message}`,
      )
    return []
  }
  return parsed.data.map((p) => ({
    id: p.id,
    name: p.name ?? p.id,
    issuer: p.issuer.replace(/\/$/, ''),
    clientId: p.client_id,
    clientSecret: p.client_secret,
  }))
}

function parseGitHub(read: EnvReader): Config['github'] {
  const clientId = read.text('GITHUB_CLIENT_ID')
  const clientSecret = read.text('GITHUB_CLIENT_SECRET')
  read.check(
    (clientId === null) === (clientSecret === null),
    'GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET go together: set both or neither',
  )
  const webUrl = read.url('GITHUB_URL', ['https', 'http']) ?? 'https://github.com'
  const apiUrl = read.url('GITHUB_API_URL', ['https', 'http']) ?? 'https://api.github.com'
  return clientId && clientSecret
    ? { clientId, clientSecret, webUrl: webUrl.replace(/\/$/, ''), apiUrl: apiUrl.replace(/\/$/, '') }
    : null
}

function parseSignUpMode(read: EnvReader): SignUpMode {
  const value = read.text('SIGNUP') ?? 'open'
  if ((signUpModes as readonly string[]).includes(value)) return value as SignUpMode
  read.problems.push(`SIGNUP must be one of ${signUpModes.join(', ')}; got ${value}`)
  return 'open'
}

export interface WebhookConfig {
  /** How often the dispatcher looks for deliveries that are due. */
  tickMs: number
  /** How long one delivery may take before it counts as failed. */
  timeoutMs: number
  /** Consecutive failed attempts after which an endpoint is disabled. */
  disableAfterFailures: number
  /** Multiplies the retry schedule (about a day); only tests shrink it. */
  retryScale: number
  /**
   * Tests only (WEBHOOK_TEST_CA_FILE, refused with NODE_ENV=production): endpoints on 127.0.0.1, any
   * port, with this certificate trusted. Production endpoints are public https only.
   */
  loopbackCa: string | null
}

const day = 86_400_000
/** Idle children cost memory (a booted Node each); more than this buys no latency. */
const maxWarmChildren = 16
/** Every problem with the environment at once, so one restart fixes them all. */
export class ConfigError extends Error {
  readonly problems: string[]

  constructor(problems: string[]) {
    super(`The configuration has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
    this.problems = problems
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Reads the environment, noting each bad value instead of letting it become NaN or a surprise. */
class EnvReader {
  readonly problems: string[] = []
  readonly #env: NodeJS.ProcessEnv

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env
  }

  text(name: string): string | null {
    const value = this.#env[name]
    return value === undefined || value === '' ? null : value
  }

  int(name: string, fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
    const value = this.text(name)
    if (value === null) return fallback
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
      this.problems.push(`${name}=${value} is not a whole number`)
      return fallback
    }
    const number = Number(value)
    if (number < min || number > max) {
      this.problems.push(`${name}=${value} must be between ${min} and ${max}`)
      return fallback
    }
    return number
  }

  url(name: string, schemes: string[]): string | null {
    const value = this.text(name)
    if (value === null) return null
    let scheme = ''
    try {
      scheme = new URL(value).protocol.replace(/:$/, '')
    } catch {
      this.problems.push(`${name}=${value} is not a URL`)
      return null
    }
    if (!schemes.includes(scheme)) {
      this.problems.push(
        `${name} must be a ${schemes.map((s) => `${s}://`).join(' or ')} URL; got ${scheme}://`,
      )
      return null
    }
    return value
  }

  check(condition: boolean, problem: string): void {
    if (!condition) this.problems.push(problem)
  }
}

export type GenerationToolId = 'create_image' | 'create_3d_model' | 'create_3d_model_from_image'

/** The generation providers and their limits. */
export interface GenerationConfig {
  openai: { apiKey: string; model: string; baseUrl: string } | null
  fal: { key: string; baseUrl: string; pollIntervalMs: number } | null
  /** Which fal.ai model serves each tool; a tool without one is not offered through fal.ai. */
  falModels: {
    image: string | null
    textTo3d: string | null
    imageTo3d: string | null
    /** The request field the image-to-3D model takes its image URL in. */
    imageTo3dInputField: string
  }
  /** Generation jobs the whole service admits per UTC day; null: unlimited. */
  dailyCapacity: number | null
  /** Longest total wait for a provider's rate limits before a job gives up. */
  rateLimitWaitMs: number
  /** Where provider result files may be downloaded from: the public internet, plus test exemptions. */
  download: {
    maxBytes: number
    timeoutMs: number
    allowedPorts: number[]
    allowAddresses: Set<string>
    caFile: string | null
  }
}

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

function readGeneration(read: EnvReader): GenerationConfig {
  const openAiKey = read.text('OPENAI_API_KEY')
  const falKey = read.text('FAL_KEY')
  const openAiBase = read.url('OPENAI_BASE_URL', ['https', 'http']) ?? 'https://api.openai.com/v1'
  const falBase = read.url('FAL_BASE_URL', ['https', 'http']) ?? 'https://queue.fal.run'
  const pollIntervalMs = read.int('FAL_POLL_INTERVAL_MS', 1000, { min: 1 })
  const allowedPorts = list(read.text('GENERATION_DOWNLOAD_ALLOWED_PORTS'))
  for (const port of allowedPorts)
    read.check(
      /^\d{1,5}$/.test(port) && Number(port) <= 65_535,
      `GENERATION_DOWNLOAD_ALLOWED_PORTS: ${port} is not a port`,
    )
  const caFile = read.text('GENERATION_DOWNLOAD_CA_FILE')
  read.check(caFile === null || existsSync(caFile), `GENERATION_DOWNLOAD_CA_FILE: no file at ${caFile}`)
  return {
    openai: openAiKey
      ? {
          apiKey: openAiKey,
          model: read.text('OPENAI_IMAGE_MODEL') ?? 'gpt-image-1',
          baseUrl: openAiBase.replace(/\/$/, ''),
        }
      : null,
    fal: falKey ? { key: falKey, baseUrl: falBase.replace(/\/$/, ''), pollIntervalMs } : null,
    falModels: {
      image: read.text('FAL_IMAGE_MODEL'),
      textTo3d: read.text('FAL_TEXT_TO_3D_MODEL'),
      imageTo3d: read.text('FAL_IMAGE_TO_3D_MODEL'),
      imageTo3dInputField: read.text('FAL_IMAGE_TO_3D_INPUT_FIELD') ?? 'image_url',
    },
    dailyCapacity:
      read.text('GENERATION_DAILY_CAPACITY') === null ? null : read.int('GENERATION_DAILY_CAPACITY', 0),
    rateLimitWaitMs: read.int('GENERATION_RATE_LIMIT_WAIT_S', 60) * 1000,
    download: {
      maxBytes: read.int('GENERATION_DOWNLOAD_MAX_BYTES', 200 * 1024 * 1024, { min: 1 }),
      timeoutMs: read.int('GENERATION_DOWNLOAD_TIMEOUT_MS', 120_000, { min: 1 }),
      allowedPorts: allowedPorts.map(Number),
      allowAddresses: new Set(list(read.text('GENERATION_DOWNLOAD_ALLOW_ADDRESSES'))),
      caFile,
    },
  }
}

/**
 * The generation settings of the environment as it is now: job children read them, and tool
 * availability follows them. loadConfig checked the same variables at start.
 */
export const generationConfig = (env: NodeJS.ProcessEnv = process.env): GenerationConfig =>
  readGeneration(new EnvReader(env))

function parseRoles(read: EnvReader): Role[] {
  const value = read.text('ROLES')
  // RUN_WORKERS=false, from before ROLES existed, still keeps jobs off an API process.
  if (value === null)
    return read.text('RUN_WORKERS') === 'false' ? roles.filter((role) => role !== 'worker') : [...roles]
  const asked = value.split(',').map((role) => role.trim())
  const unknown = asked.filter((role) => !(roles as readonly string[]).includes(role))
  read.check(unknown.length === 0, `ROLES: unknown role ${unknown.join(', ')}; use ${roles.join(', ')}`)
  return asked.filter((role): role is Role => (roles as readonly string[]).includes(role))
}

/** The configuration from the environment; a ConfigError naming every bad variable stops start-up. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = new EnvReader(env)
  const port = read.int('PORT', 8080, { max: 65_535 })
  const dataDir = resolve(read.text('DATA_DIR') ?? './data')
  const workerConcurrency = read.int('WORKER_CONCURRENCY', availableParallelism(), { min: 1, max: 256 })
  const publicUrl = (read.url('PUBLIC_URL', ['http', 'https']) ?? `http://localhost:${port}`).replace(
    /\/$/,
    '',
  )
  const signingSecret = read.text('SIGNING_SECRET') ?? ''
  read.check(
    signingSecret === '' || Buffer.byteLength(signingSecret) >= 32,
    'SIGNING_SECRET must be at least 32 bytes (or unset, to generate one into DATA_DIR)',
  )
  const atRestKey = read.text('AT_REST_KEY')
  read.check(
    atRestKey === null || Buffer.from(atRestKey, 'base64url').length === 32,
    'AT_REST_KEY must be 32 bytes in base64url (43 characters)',
  )
  const blobsUrl = read.text('BLOBS_URL')
  read.check(
    blobsUrl === null || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(blobsUrl),
    `BLOBS_URL must look like s3://bucket/prefix; got ${blobsUrl}`,
  )
  const logLevel = read.text('LOG_LEVEL')
  read.check(
    logLevel === null || logLevels.includes(logLevel),
    `LOG_LEVEL must be one of ${logLevels.join(', ')}`,
  )
  const oauthIssuer = read.url('OAUTH_ISSUER', ['https', 'http'])
  const oauthJwks = read.url('OAUTH_JWKS_URL', ['https', 'http'])
  const oauthAudience = read.text('OAUTH_AUDIENCE')
  read.check(
    [oauthIssuer, oauthJwks, oauthAudience].every((v) => v === null) ||
      [oauthIssuer, oauthJwks, oauthAudience].every((v) => v !== null),
    'OAUTH_ISSUER, OAUTH_AUDIENCE and OAUTH_JWKS_URL go together: set all three or none',
  )
  const billingCatalog = read.text('BILLING_CATALOG')
  if (billingCatalog !== null)
    try {
      read.check(Array.isArray(JSON.parse(billingCatalog)), 'BILLING_CATALOG must be a JSON array')
    } catch {
      read.problems.push('BILLING_CATALOG is not valid JSON')
    }

  // Generation settings are read again where they are used (generationConfig: job children, and
  // availability, which follows the environment), by the same code; a bad value stops start-up here.
  readGeneration(read)
  // The native loaders read their backend themselves; checked here so a typo stops start-up.
  for (const name of ['KILN_MESH_BACKEND', 'KILN_PDF_BACKEND']) {
    const backend = read.text(name)
    read.check(
      backend === null || backend === 'native' || backend === 'wasm',
      `${name} must be native or wasm`,
    )
  }

  const mcpAllowedOrigins = (read.text('MCP_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
  for (const origin of mcpAllowedOrigins) {
    let valid = false
    try {
      valid = new URL(origin).origin === origin
    } catch {}
    read.check(valid, `MCP_ALLOWED_ORIGINS: ${origin} is not an origin (scheme://host[:port], no path)`)
  }

  const webhookTestCa = read.text('WEBHOOK_TEST_CA_FILE')
  read.check(
    webhookTestCa === null || process.env.NODE_ENV !== 'production',
    'WEBHOOK_TEST_CA_FILE is for tests only and is refused with NODE_ENV=production',
  )
  read.check(
    webhookTestCa === null || existsSync(webhookTestCa),
    `WEBHOOK_TEST_CA_FILE: no file at ${webhookTestCa}`,
  )

  const trustProxy = (read.text('TRUST_PROXY') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of trustProxy)
    read.check(isProxyEntry(entry), `TRUST_PROXY: ${entry} is not an address or CIDR`)

  const config: Config = {
    roles: parseRoles(read),
    leaseTtlMs: read.int('LEASE_TTL_MS', 10_000, { min: 300 }),
    readyMaxLag: read.int('READY_MAX_LAG', 1000),
    metricsToken: read.text('METRICS_TOKEN'),
    port,
    host: read.text('HOST') ?? '0.0.0.0',
    dataDir,
    publicUrl,
    signingSecret,
    kurrentDbUrl: read.url('KURRENTDB_URL', ['kurrentdb', 'kurrentdb+discover', 'esdb', 'esdb+discover']),
    mongoDbUrl: read.url('MONGODB_URL', ['mongodb', 'mongodb+srv']),
    natsUrl: read.url('NATS_URL', ['nats', 'tls', 'ws', 'wss']),
    blobsUrl,
    atRestKey,
    workerConcurrency,
    warmChildren: Math.min(
      read.int('WORKER_WARM_CHILDREN', workerConcurrency, { max: 1024 }),
      maxWarmChildren,
    ),
    maxQueuedJobs: read.int('MAX_QUEUED_JOBS', 200),
    maxActiveJobsPerAccount: read.int('MAX_ACTIVE_JOBS', 1, { min: 1 }),
    uploadMaxBytes: read.int('UPLOAD_MAX_BYTES', 50 * 1024 * 1024, { min: 1 }),
    httpTimeouts: {
      requestMs: read.int('REQUEST_TIMEOUT_MS', 30 * 60_000, { min: 1000 }),
      idleMs: read.int('CONNECTION_IDLE_TIMEOUT_MS', 120_000, { min: 1000 }),
      keepAliveMs: read.int('KEEP_ALIVE_TIMEOUT_MS', 72_000, { min: 1000 }),
    },
    signedPuts: {
      minBytesPerSecond: read.int('UPLOAD_MIN_BYTES_PER_SECOND', 32 * 1024, { min: 1 }),
      graceMs: read.int('UPLOAD_RATE_GRACE_MS', 10_000, { min: 100 }),
      concurrentPerAddress: read.int('UPLOAD_PUTS_PER_ADDRESS', 4, { min: 1 }),
      perSecond: read.int('UPLOAD_PUT_RATE_PER_SECOND', 2, { min: 1 }),
      burst: read.int('UPLOAD_PUT_BURST', 20, { min: 1 }),
    },
    storageLimits: {
      pendingUploads: read.int('ACCOUNT_PENDING_UPLOADS_MAX', 10, { min: 1 }),
      storedBytes: read.int('ACCOUNT_STORED_BYTES_MAX', 1024 * 1024 * 1024, { min: 1 }),
    },
    uploadUrlValidMs: 3_600_000,
    outputRetentionMs: read.int('OUTPUT_RETENTION_MS', day, { min: 1000 }),
    signupCredits: read.int('SIGNUP_CREDITS', 100),
    signupCreditsValidMs: 365 * day,
    forgottenKeyMs: 30 * day,
    maxJobAttempts: read.int('MAX_JOB_ATTEMPTS', 3, { min: 1, max: 100 }),
    stuckJobGraceMs: read.int('STUCK_JOB_GRACE_MS', 60_000),
    oauth:
      oauthIssuer && oauthAudience && oauthJwks
        ? {
            issuer: oauthIssuer,
            audience: oauthAudience,
            jwksUrl: oauthJwks,
            accountClaim: read.text('OAUTH_ACCOUNT_CLAIM') ?? 'sub',
          }
        : null,
    rateLimit: {
      perSecond: read.int('RATE_LIMIT_PER_SECOND', 20, { min: 1 }),
      burst: read.int('RATE_LIMIT_BURST', 60, { min: 1 }),
    },
    addressRateLimit: {
      perSecond: read.int('ADDRESS_RATE_LIMIT_PER_SECOND', 50, { min: 1 }),
      burst: read.int('ADDRESS_RATE_LIMIT_BURST', 150, { min: 1 }),
    },
    authFailureLimit: {
      perSecond: read.int('AUTH_FAILURES_PER_MINUTE', 10, { min: 1 }) / 60,
      burst: read.int('AUTH_FAILURE_BURST', 20, { min: 1 }),
    },
    trustProxy,
    stripe: read.text('STRIPE_SECRET_KEY')
      ? {
          secretKey: read.text('STRIPE_SECRET_KEY')!,
          webhookSecret: read.text('STRIPE_WEBHOOK_SECRET') ?? '',
          apiBase: read.url('STRIPE_API_BASE', ['http', 'https']),
        }
      : null,
    billingCatalog,
    mcpWaitMs: Math.min(read.int('MCP_WAIT_MS', 20_000), 50_000),
    mcpAllowedOrigins,
    consoleSession: {
      idleMs: read.int('CONSOLE_SESSION_IDLE_SECONDS', 2 * 3600, { min: 60 }) * 1000,
      absoluteMs: read.int('CONSOLE_SESSION_MAX_SECONDS', 7 * 86_400, { min: 60 }) * 1000,
    },
    consoleTokenValidMs: read.int('CONSOLE_TOKEN_DAYS', 90, { min: 1, max: 3650 }) * day,
    authorizationServer: {
      accessTokenTtlSeconds: read.int('OAUTH_ACCESS_TOKEN_SECONDS', 900, { min: 60, max: 86_400 }),
      refreshTokenTtlSeconds: read.int('OAUTH_REFRESH_TOKEN_DAYS', 30, { min: 1, max: 365 }) * 86_400,
      authorizationCodeTtlSeconds: 60,
      clientMetadataCacheSeconds: {
        min: 60,
        max: read.int('OAUTH_CLIENT_METADATA_CACHE_SECONDS', 3600, { min: 60, max: 86_400 }),
      },
    },
    signup: parseSignUpMode(read),
    signupRateLimit: {
      perAddress: read.int('SIGNUP_RATE_LIMIT', 5, { min: 1 }),
      windowMs: read.int('SIGNUP_RATE_WINDOW_MINUTES', 60, { min: 1, max: 7 * 24 * 60 }) * 60_000,
    },
    invitationValidMs: read.int('INVITATION_DAYS', 14, { min: 1, max: 365 }) * day,
    github: parseGitHub(read),
    oidcProviders: parseOidcProviders(read),
    quoteRateLimit: {
      perSecond: read.int('QUOTES_PER_MINUTE', 30, { min: 1 }) / 60,
      burst: read.int('QUOTE_BURST', 10, { min: 1 }),
    },
    webhooks: {
      tickMs: read.int('WEBHOOK_TICK_MS', 1000, { min: 10, max: 60_000 }),
      timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
      disableAfterFailures: read.int('WEBHOOK_DISABLE_AFTER_FAILURES', 50, { min: 1 }),
      retryScale: read.int('WEBHOOK_RETRY_SCALE_PERCENT', 100, { min: 0, max: 100 }) / 100,
      loopbackCa:
        webhookTestCa !== null && existsSync(webhookTestCa) ? readFileSync(webhookTestCa, 'utf8') : null,
    },
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems)
  return config
}

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** An address, a CIDR (address/prefix length) or one of proxy-addr's names for address ranges. */
function isProxyEntry(entry: string): boolean {
  if (proxyNames.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

/** For the entry points: the configuration, or a fatal log line naming every problem and exit code 2. */
export function loadConfigOrExit(log: { fatal(data: object, message: string): void }): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    log.fatal({ problems: error.problems }, 'kiln cannot start: fix the environment variables named here')
    process.exit(2)
  }
}
