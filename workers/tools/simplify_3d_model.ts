// simplify_3d_model: runs the mesh core's simplify tool (native/mesh-core/src/tools/simplify.rs) on the job's model.
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { SimplifyOptions } from '../../domain/tools/options/simplify_3d_model.ts'
import { meshToolRunner } from '../../native/mesh.ts'

export const runner: ToolRunner<SimplifyOptions> = meshToolRunner<SimplifyOptions>(
  'simplify_3d_model',
  'simplify',
)
