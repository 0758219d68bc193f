// split_3d_model: runs the mesh core's split tool (native/mesh-core/src/tools/split.rs) on the job's model.
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { SplitOptions } from '../../domain/tools/options/split_3d_model.ts'
import { meshToolRunner } from '../../native/mesh.ts'

export const runner: ToolRunner<SplitOptions> = meshToolRunner<SplitOptions>('split_3d_model', 'split')
