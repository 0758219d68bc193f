// inspect_3d_model: runs the mesh core's inspect tool (native/mesh-core/src/tools/inspect.rs) on the job's model.
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { InspectOptions } from '../../domain/tools/options/inspect_3d_model.ts'
import { meshToolRunner } from '../../native/mesh.ts'

export const runner: ToolRunner<InspectOptions> = meshToolRunner<InspectOptions>(
  'inspect_3d_model',
  'inspect',
)
