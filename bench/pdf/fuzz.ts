// The parser fuzz loop of native/pdf-core/tests/corpus.rs with a bigger budget, in release mode.
// cargo-fuzz needs a nightly toolchain; this seeded mutation loop runs on stable.
// Run: node_modules/.bin/node bench/pdf/fuzz.ts [cases, default 20000]
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const cases = process.argv[2] ?? '20000'
const result = spawnSync(
  'cargo',
  [
    'test',
    '--release',
    '-j',
    '2',
    '--manifest-path',
    join(import.meta.dirname, '../../native/Cargo.toml'),
    '-p',
    'pdf-core',
    '--test',
    'corpus',
    'mutated',
    '--',
    '--nocapture',
  ],
  { stdio: 'inherit', env: { ...process.env, PDF_FUZZ_CASES: cases } },
)
process.exit(result.status ?? 1)
