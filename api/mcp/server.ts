// The MCP server for one request: the catalog tools of one toolset (or all) plus the companion
// tools, bound to the caller. A fresh instance per request keeps every API instance stateless.
import { McpServer } from '@modelcontextprotocol/server'
import { isToolAvailable } from '../../app/generation/availability.ts'
import { type Toolset, toolCatalog } from '../../domain/tools/catalog.ts'
import { registerCatalogTool } from './catalog-tools.ts'
import { registerCompanionTools } from './companion-tools.ts'
import type { ToolContext } from './tool-context.ts'

const instructions =
  'Each tool starts an asynchronous job and waits a bounded time for it. A finished job comes back with its outputs as resource links; ' +
  'a job still queued or running comes back with its id: follow it with get_job (wait_seconds). Always pass an idempotency_key and reuse it ' +
  'when you retry, so a retry returns the first job instead of paying twice. File inputs: create_upload, PUT the file, then pass upload_id ' +
  '(or give a public https url). Read text outputs with read_job_file. Errors carry a stable code (insufficient_credits, quota_exceeded, ...).'

export function createMcpServer(context: ToolContext, toolset: Toolset | null): McpServer {
  const server = new McpServer(
    { name: 'kiln', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions },
  )
  // Generation tools appear only while a provider for them is configured, as in GET /v1/tools.
  const tools = [...toolCatalog.values()].filter(
    (tool) => (toolset === null || tool.toolset === toolset) && isToolAvailable(tool.id),
  )
  for (const tool of tools) registerCatalogTool(server, tool, context)
  registerCompanionTools(server, context, { uploads: tools.some((tool) => tool.input.kind === 'file') })
  return server
}
