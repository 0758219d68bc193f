// create_3d_model: a model from a written description at the configured text-to-3D provider,
// finished (grounded at unit size, welded, web copy, preview).
import { generationConfig } from '../../app/config.ts'
import { DomainError } from '../../domain/errors.ts'
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { Create3dModelOptions } from '../../domain/tools/options/create_3d_model.ts'
import { callProvider } from '../generation/call-provider.ts'
import { modelOutput } from '../generation/glb-output.ts'
import { textTo3dProvider } from '../providers/config.ts'

function provider() {
  const configured = textTo3dProvider(generationConfig())
  if (!configured)
    throw new DomainError('not_found', 'No text-to-3D provider is configured on this worker.', {
      hint: 'Retry later; failed jobs cost nothing.',
    })
  return configured
}

export const runner: ToolRunner<Create3dModelOptions> = {
  async measure() {
    provider()
    return { units: 1 }
  },
  async run(_input, options, context) {
    const configured = provider()
    context.progress(0.05, 'sending the description to the provider')
    const generation = await callProvider(
      context,
      { rateLimitBudgetMs: generationConfig().rateLimitWaitMs, fraction: 0.4 },
      (call) => configured.generateFromText({ description: options.description, seed: options.seed }, call),
    )
    return modelOutput(generation, context, { seed: options.seed ?? null })
  },
}
