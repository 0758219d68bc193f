// Generation admission besides the account's own decision: the server-wide daily capacity
// (GENERATION_DAILY_CAPACITY, unset = unlimited) and the provider's rate limit as learnt from the
// latest job of the tool. Reserved before the account admits the job, released if it does not.

import { accountStream } from '../../domain/account/events.ts'
import { decideCapacity } from '../../domain/capacity/decide.ts'
import { type CapacityCommand, type CapacityEvent, capacityStream } from '../../domain/capacity/events.ts'
import { throttleSecondsOf } from '../../domain/capacity/provider-throttle.ts'
import { type CapacityState, evolveCapacity, initialCapacityState } from '../../domain/capacity/state.ts'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import type { JobEvent } from '../../domain/job/events.ts'
import { jobStream } from '../../domain/job/events.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import { generationConfig } from '../config.ts'
import type { ServiceContext } from '../context.ts'
import { accountDecider } from '../deciders.ts'
import { type Decider, handleCommand, readState } from '../handle-command.ts'

export const capacityDecider: Decider<CapacityState, CapacityCommand, CapacityEvent> = {
  initialState: initialCapacityState,
  evolve: evolveCapacity,
  decide: decideCapacity,
}

export interface Reservation {
  /** Gives the unit back: the job it was for was not admitted. */
  release(): Promise<void>
}

const nothingReserved: Reservation = { release: async () => {} }

type Env = Record<string, string | undefined>

/**
 * A job that failed because the provider kept limiting requests tells, with its finishing time
 * and the provider's Retry-After, until when new jobs would meet the same limit.
 */
async function refuseWhileThrottled(ctx: ServiceContext, latestJobId: string | undefined) {
  if (latestJobId === undefined) return
  const events = await ctx.store.readStream(jobStream(latestJobId))
  const last = events.at(-1) as
    | {
        type: JobEvent['type']
        data: { error?: { code: string; message: string; hint: string | null }; at: string }
      }
    | undefined
  if (last?.type !== 'JobFailed') return
  const seconds = throttleSecondsOf(last.data.error ?? null)
  if (seconds === null) return
  const remaining = Math.ceil((Date.parse(last.data.at) + seconds * 1000 - ctx.now()) / 1000)
  if (remaining > 0) {
    throw new DomainError(
      'rate_limited',
      'The generation provider is limiting requests right now; nothing was started.',
      {
        hint: 'Wait for Retry-After, then try once more.',
        retryAfterSeconds: remaining,
      },
    )
  }
}

/** A key the account already knows is answered by the account's own decision (200, 409 or 410), not refused here. */
async function keyIsKnown(ctx: ServiceContext, accountId: string, idempotencyKey: string | null) {
  if (idempotencyKey === null) return false
  const { state } = await readState(ctx.store, accountStream(accountId), accountDecider)
  return state.idempotency.has(idempotencyKey)
}

export async function reserveGeneration(
  ctx: ServiceContext,
  tool: ToolDefinition,
  request: { jobId: string; accountId: string; idempotencyKey: string | null },
  env: Env = process.env,
): Promise<Reservation> {
  if (!tool.generation) return nothingReserved
  const stream = capacityStream(ctx.now())
  try {
    const { state } = await readState(ctx.store, stream, capacityDecider)
    await refuseWhileThrottled(ctx, state.latestJobByTool.get(tool.id))
    await handleCommand(ctx.store, stream, capacityDecider, {
      type: 'ReserveCapacity',
      data: {
        jobId: request.jobId,
        tool: tool.id,
        dailyLimit: generationConfig(env).dailyCapacity,
        now: ctx.now(),
      },
    })
  } catch (error) {
    if (isDomainError(error) && (await keyIsKnown(ctx, request.accountId, request.idempotencyKey)))
      return nothingReserved
    throw error
  }
  return {
    release: async () => {
      await handleCommand(ctx.store, stream, capacityDecider, {
        type: 'ReleaseCapacity',
        data: { jobId: request.jobId, now: ctx.now() },
      })
    },
  }
}
