// Builds the wasm32-wasip1-threads fallback of the PDF binding with @napi-rs/cli: it writes
// pdf.wasm32-wasi.wasm and the pdf.wasi.cjs loader beside this file, which native/pdf.ts loads
// when no native addon exists for the platform. The loader needs the npm package
// @napi-rs/wasm-runtime at run time. Run: node native/pdf-node/build-wasm.ts
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const target = 'wasm32-wasip1-threads'
const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' })
if (!installed.stdout?.split('\n').includes(target)) {
  console.error(`The Rust target ${target} is not installed: run \`rustup target add ${target}\` first.`)
  process.exit(1)
}

const crateDir = import.meta.dirname
const nativeDir = join(crateDir, '..')
const result = spawnSync(
  join(nativeDir, '..', 'node_modules', '.bin', 'napi'),
  [
    'build',
    '--platform',
    '--release',
    '--target',
    target,
    '--manifest-path',
    join(crateDir, 'Cargo.toml'),
    '--package-json-path',
    join(crateDir, 'package.json'),
    '--output-dir',
    crateDir,
    '--target-dir',
    join(nativeDir, 'target'),
  ],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
