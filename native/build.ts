// Builds every napi-rs binding crate (native/*-node) in release mode with @napi-rs/cli, then the kiln-mesh command.
// The .node file lands beside its crate as <binaryName>.<platform>.node; native/load.ts finds it there.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const nativeDir = import.meta.dirname
const only = process.argv.slice(2)
const crates = readdirSync(nativeDir).filter(
  (name) =>
    name.endsWith('-node') &&
    existsSync(join(nativeDir, name, 'Cargo.toml')) &&
    (only.length === 0 || only.includes(name)),
)
const napi = join(nativeDir, '..', 'node_modules', '.bin', 'napi')

for (const crate of crates) {
  const dir = join(nativeDir, crate)
  console.log(`building native/${crate}`)
  const result = spawnSync(
    napi,
    [
      'build',
      '--platform',
      '--release',
      '--no-js',
      '--manifest-path',
      join(dir, 'Cargo.toml'),
      '--package-json-path',
      join(dir, 'package.json'),
      '--output-dir',
      dir,
      '--target-dir',
      join(nativeDir, 'target'),
    ],
    { stdio: 'inherit' },
  )
  if (result.status !== 0) process.exit(result.status ?? 1)
}

// The kiln-mesh command (native/mesh-cli): the same core as a program, for local runs and the mesh bench.
if (only.length === 0 || only.includes('mesh-cli')) {
  console.log('building native/mesh-cli (kiln-mesh)')
  const result = spawnSync(
    'cargo',
    ['build', '--release', '--manifest-path', join(nativeDir, 'Cargo.toml'), '-p', 'mesh-cli'],
    { stdio: 'inherit' },
  )
  if (result.status !== 0) process.exit(result.status ?? 1)
}
