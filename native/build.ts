// Builds every napi-rs binding crate (native/*-node) in release mode with @napi-rs/cli, then the kiln-mesh command.
// The .node file lands beside its crate as <binaryName>.<platform>.node; native/load.ts finds it there.
import { buildKilnMesh } from './cargo.ts'
import { bindingCrates, napiBuild } from './napi-build.ts'

const only = process.argv.slice(2)
for (const crate of bindingCrates(only)) {
  console.log(`building native/${crate}`)
  const status = napiBuild(crate, ['--no-js'])
  if (status !== 0) process.exit(status)
}

// The kiln-mesh command (native/mesh-cli): the same core as a program, for local runs and the mesh bench.
if (only.length === 0 || only.includes('mesh-cli')) {
  console.log('building native/mesh-cli (kiln-mesh)')
  // For the addons' triple, so it reuses their objects; statically linked (native/cargo.ts).
  const status = buildKilnMesh()
  if (status !== 0) process.exit(status)
}
