// Builds every napi-rs binding crate (native/*-node) in release mode with @napi-rs/cli, then the kiln-mesh command.
// The .node file lands beside its crate as <binaryName>.<platform>.node; native/load.ts finds it there.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { bindingCrates, napiBuild, nativeDir } from './napi-build.ts'

const only = process.argv.slice(2)
for (const crate of bindingCrates(only)) {
  console.log(`building native/${crate}`)
  const status = napiBuild(crate, ['--no-js'])
  if (status !== 0) process.exit(status)
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
