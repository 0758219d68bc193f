import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { RandomBytesOptions } from '../../domain/tools/options/get_random_bytes.ts'

export const runner: ToolRunner<RandomBytesOptions> = {
  async measure() {
    return { units: 1 }
  },
  async run(_input, { length, encoding }, context) {
    const bytes = Buffer.from(context.randomBytes(length))
    return { summary: { bytes: bytes.toString(encoding), length, encoding, source: 'csprng' } }
  },
}
