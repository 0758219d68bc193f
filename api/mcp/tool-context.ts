// What every tool handler of one MCP request needs: the services, who is calling, and how long a call may wait.
import type { Services } from '../../app/services.ts'
import type { Principal } from '../auth.ts'

export interface ToolContext {
  services: Services
  principal: Principal
  /** The longest a call waits for a job before it returns the job still running. */
  waitMs: number
}
