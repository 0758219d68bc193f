// What every tool handler of one MCP request needs: the services, who is calling, and how long a call may wait.
import type { FastifyBaseLogger } from 'fastify'
import type { Services } from '../../app/services.ts'
import { isDomainError } from '../../domain/errors.ts'
import type { Principal } from '../auth.ts'
import { errorResult, type StructuredResult } from './results.ts'

export interface ToolContext {
  services: Services
  principal: Principal
  /** The longest a call waits for a job before it returns the job still running. */
  waitMs: number
  log: FastifyBaseLogger
}

/** The tool error for a failure; one that is not a domain error is a bug, logged with its stack and shown only as internal. */
export function failure(context: ToolContext, error: unknown): StructuredResult {
  if (!isDomainError(error)) context.log.error({ err: error }, 'MCP tool call failed')
  return errorResult(error)
}
