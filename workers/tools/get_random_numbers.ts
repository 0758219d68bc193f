import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { RandomNumbersOptions } from '../../domain/tools/options/get_random_numbers.ts'
import { distinctIntegers, uniformInteger, uniformReal } from './random-source.ts'

export const runner: ToolRunner<RandomNumbersOptions> = {
  async measure() {
    return { units: 1 }
  },
  async run(_input, options, context) {
    const bytes = context.randomBytes
    const { count, type, min, max, unique } = options
    let numbers: number[]
    if (type === 'real') numbers = Array.from({ length: count }, () => uniformReal(min, max, bytes))
    else if (unique) numbers = distinctIntegers(min, max, count, bytes)
    else numbers = Array.from({ length: count }, () => uniformInteger(min, max, bytes))
    return { summary: { numbers, count, type, min, max, unique, source: 'csprng' } }
  },
}
