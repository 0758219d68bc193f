// Every catalog tool as an MCP tool: the call starts the job (the same createJob as REST), waits a
// bounded time for it, and returns the Job, finished or with a note on how to follow it.
import type { McpServer, ToolAnnotations } from '@modelcontextprotocol/server'
import { createJob } from '../../app/jobs/create-job.ts'
import { jobRequestFrom } from '../../app/jobs/job-request.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'
import { storedBytesOf } from '../account-storage.ts'
import { requireScope, runScope } from '../auth.ts'
import { jobSchema, toolOutput } from './output-schemas.ts'
import { jobResult } from './results.ts'
import { failure, type ToolContext } from './tool-context.ts'
import { catalogToolInput, jobFieldsOf } from './tool-input.ts'
import { waitForJob } from './wait-for-job.ts'

/**
 * Read-only only when the catalog says the tool leaves the input alone and the call is free: a paid
 * call spends credits. Idempotent when a key is required (a repeat returns the first job). Open-world
 * when the tool calls a generation provider or fetches a caller's URL.
 */
function catalogAnnotations(tool: ToolDefinition): ToolAnnotations {
  return {
    title: tool.title,
    readOnlyHint: tool.readOnly && tool.pricing.kind === 'free',
    destructiveHint: false,
    idempotentHint: tool.idempotencyRequired,
    openWorldHint: tool.generation || tool.input.sources.includes('url'),
  }
}

export function registerCatalogTool(server: McpServer, tool: ToolDefinition, context: ToolContext): void {
  const { services, principal, waitMs } = context
  server.registerTool(
    tool.id,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: catalogToolInput(tool),
      outputSchema: toolOutput(jobSchema),
      annotations: catalogAnnotations(tool),
    },
    async (args, ctx) => {
      const started = Date.now()
      try {
        requireScope(principal, runScope)
        const jobRequest = jobRequestFrom(
          tool,
          { kind: 'fields', fields: jobFieldsOf(args) },
          services.ctx.config,
        )
        const { jobId, position } = await createJob(
          services.ctx,
          { accountId: principal.accountId, tool: tool.id, ...jobRequest },
          { storedBytes: storedBytesOf(services) },
        )
        await services.waitForPosition(position)
        const job = await waitForJob(services, principal.accountId, jobId, waitMs, ctx)
        return jobResult(job, Math.round((Date.now() - started) / 1000))
      } catch (error) {
        return failure(context, error)
      }
    },
  )
}
