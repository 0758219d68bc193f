// Where each tool's runner lives. Modules are imported inside the isolated child process only.
import type { ToolId } from '../../domain/tools/catalog.ts'

export const runnerModules: Record<ToolId, string> = {
  create_3d_model: './create_3d_model.ts',
  create_image: './create_image.ts',
  create_3d_model_from_image: './create_3d_model_from_image.ts',
  optimize_3d_model: './optimize_3d_model.ts',
  simplify_3d_model: './simplify_3d_model.ts',
  split_3d_model: './split_3d_model.ts',
  inspect_3d_model: './inspect_3d_model.ts',
  extract_pdf: './extract_pdf.ts',
  get_random_numbers: './get_random_numbers.ts',
  get_random_bytes: './get_random_bytes.ts',
}
