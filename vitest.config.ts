import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'native/target/**', 'data/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most suites wait on real servers (NATS, FerretDB, versitygw, the service itself) far more than
    // they compute, so files run one per core, and at least two at once: vitest's own default, one
    // fewer than the cores, ran the suite one file at a time on a 2-core machine.
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
