// Service configuration, from the environment. One place that knows every variable.
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'

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
  /** Stripe; billing is unavailable (catalog `available: false`) without it. */
  stripe: { secretKey: string; webhookSecret: string; apiBase: string | null } | null
  /** JSON array of catalog items replacing the default packs and bundles. */
  billingCatalog: string | null
  /** How long an MCP tool call waits for its job before returning it still running (well under 60 s). */
  mcpWaitMs: number
}

const day = 86_400_000
/** Idle children cost memory (a booted Node each); more than this buys no latency. */
const maxWarmChildren = 16
const int = (value: string | undefined, fallback: number) =>
  value === undefined || value === '' ? fallback : Number.parseInt(value, 10)

function parseRoles(value: string | undefined, runWorkers: string | undefined): Role[] {
  // RUN_WORKERS=false, from before ROLES existed, still keeps jobs off an API process.
  if (value === undefined || value.trim() === '')
    return runWorkers === 'false' ? roles.filter((role) => role !== 'worker') : [...roles]
  const asked = value.split(',').map((role) => role.trim())
  const unknown = asked.filter((role) => !(roles as readonly string[]).includes(role))
  if (unknown.length > 0)
    throw new Error(`ROLES: unknown role ${unknown.join(', ')}; use ${roles.join(', ')}`)
  return asked as Role[]
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 8080)
  const dataDir = resolve(env.DATA_DIR ?? './data')
  const workerConcurrency = int(env.WORKER_CONCURRENCY, availableParallelism())
  return {
    roles: parseRoles(env.ROLES, env.RUN_WORKERS),
    leaseTtlMs: int(env.LEASE_TTL_MS, 10_000),
    readyMaxLag: int(env.READY_MAX_LAG, 1000),
    metricsToken: env.METRICS_TOKEN || null,
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    signingSecret: env.SIGNING_SECRET ?? '',
    kurrentDbUrl: env.KURRENTDB_URL || null,
    mongoDbUrl: env.MONGODB_URL || null,
    natsUrl: env.NATS_URL || null,
    blobsUrl: env.BLOBS_URL || null,
    atRestKey: env.AT_REST_KEY || null,
    workerConcurrency,
    warmChildren: Math.max(0, Math.min(int(env.WORKER_WARM_CHILDREN, workerConcurrency), maxWarmChildren)),
    maxQueuedJobs: int(env.MAX_QUEUED_JOBS, 200),
    maxActiveJobsPerAccount: int(env.MAX_ACTIVE_JOBS, 1),
    uploadMaxBytes: int(env.UPLOAD_MAX_BYTES, 50 * 1024 * 1024),
    uploadUrlValidMs: 3_600_000,
    outputRetentionMs: int(env.OUTPUT_RETENTION_MS, day),
    signupCredits: int(env.SIGNUP_CREDITS, 100),
    signupCreditsValidMs: 365 * day,
    forgottenKeyMs: 30 * day,
    maxJobAttempts: int(env.MAX_JOB_ATTEMPTS, 3),
    stuckJobGraceMs: int(env.STUCK_JOB_GRACE_MS, 60_000),
    oauth:
      env.OAUTH_ISSUER && env.OAUTH_AUDIENCE && env.OAUTH_JWKS_URL
        ? {
            issuer: env.OAUTH_ISSUER,
            audience: env.OAUTH_AUDIENCE,
            jwksUrl: env.OAUTH_JWKS_URL,
            accountClaim: env.OAUTH_ACCOUNT_CLAIM ?? 'sub',
          }
        : null,
    rateLimit: { perSecond: int(env.RATE_LIMIT_PER_SECOND, 20), burst: int(env.RATE_LIMIT_BURST, 60) },
    stripe: env.STRIPE_SECRET_KEY
      ? {
          secretKey: env.STRIPE_SECRET_KEY,
          webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? '',
          apiBase: env.STRIPE_API_BASE || null,
        }
      : null,
    billingCatalog: env.BILLING_CATALOG || null,
    mcpWaitMs: Math.min(int(env.MCP_WAIT_MS, 20_000), 50_000),
  }
}
