// optimize_3d_model: runs the mesh core's optimize tool (native/mesh-core/src/tools/optimize.rs) on the job's model.
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { OptimizeOptions } from '../../domain/tools/options/optimize_3d_model.ts'
import { meshToolRunner } from '../../native/mesh.ts'

export const runner: ToolRunner<OptimizeOptions> = meshToolRunner<OptimizeOptions>(
  'optimize_3d_model',
  'optimize',
)
