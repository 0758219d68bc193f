// A price quote: the same input forms and checks as starting a job (create-job.ts stages the input
// the same way), the input measured as the worker would measure it, the price the worker would
// charge, and the admission decision asked of the account without appending anything. Nothing is
// charged, no quota or active-job slot is used, and the staged copy is removed at once.
import { accountStream } from '../../domain/account/events.ts'
import { balanceAt, heldCredits } from '../../domain/account/state.ts'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import { newJobId } from '../../domain/ids.ts'
import type { JobInput } from '../../domain/job/events.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import { priceFor } from '../../domain/tools/pricing.ts'
import { jobBlobPrefix, type ServiceContext } from '../context.ts'
import { accountDecider } from '../deciders.ts'
import { requireAvailableTool } from '../generation/availability.ts'
import { readState } from '../handle-command.ts'
import { admissionCommand, checkInputShape, readInput, requireTool, stageInput } from './create-job.ts'
import type { RequestedInput } from './job-request.ts'
import { resolveOptions } from './options.ts'
import type { FetchPolicy } from './stage-input.ts'

/** Measures an input without running the tool (workers/measure-input.ts). */
export type MeasureInput = (
  tool: ToolDefinition,
  input: JobInput,
  options: Record<string, unknown>,
) => Promise<{ units: number; extraUnits: number }>

export interface Quote {
  tool: string
  units: number
  unit: string
  /** Units priced on top (OCR pages of extract_pdf); 0 for tools without them. As the API names it. */
  extra_units: number
  credits: number
  balance: number
  /** The balance less what admitted jobs of unknown price hold. */
  available: number
  admitted: boolean
  /** The error code a job would get now, when it would not be admitted or could not be charged. */
  code: string | null
  message: string | null
}

export async function quoteJob(
  ctx: ServiceContext,
  measure: MeasureInput,
  request: { accountId: string; tool: string; options: unknown; input: RequestedInput },
  fetchPolicy: FetchPolicy = {},
): Promise<Quote> {
  const tool = requireTool(request.tool)
  requireAvailableTool(tool.id)
  const options = resolveOptions(tool, request.options)
  checkInputShape(tool, request.input)
  const scratchId = newJobId(ctx.random, ctx.now())
  const ready = await readInput(ctx, tool, request.input, fetchPolicy)
  let measured: { units: number; extraUnits: number }
  try {
    const input = await stageInput(ctx, tool, scratchId, request.accountId, ready)
    measured = await measure(tool, input, options)
  } finally {
    await ctx.blobs.deletePrefix(jobBlobPrefix(scratchId))
    if (ready.kind === 'staged') await ctx.blobs.deletePrefix(ready.stagingPrefix)
  }
  const { units, extraUnits } = measured
  const unit = tool.pricing.kind === 'free' ? 'units' : (tool.pricing.unit ?? 'jobs')
  const credits = priceFor(tool.pricing, units, extraUnits)
  const now = ctx.now()
  const { state } = await readState(ctx.store, accountStream(request.accountId), accountDecider)
  const balance = balanceAt(state, now)
  const available = balance - heldCredits(state)
  let refusal: DomainError | null = null
  try {
    accountDecider.decide(admissionCommand(ctx, { idempotencyKey: null }, tool, scratchId, null), state)
    if (tool.limits.maxUnits !== null && units > tool.limits.maxUnits)
      refusal = new DomainError(
        'limit_exceeded',
        `${tool.id} takes up to ${tool.limits.maxUnits} ${unit}; this input has ${units}.`,
      )
    else if (credits > available)
      refusal = new DomainError(
        'insufficient_credits',
        `This job costs ${credits} credits; the available balance is ${Math.max(0, available)}.`,
      )
  } catch (error) {
    if (!isDomainError(error)) throw error
    refusal = error
  }
  return {
    tool: tool.id,
    units,
    unit,
    extra_units: extraUnits,
    credits,
    balance,
    available: Math.max(0, available),
    admitted: refusal === null,
    code: refusal?.code ?? null,
    message: refusal?.message ?? null,
  }
}
