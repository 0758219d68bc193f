// Builds the wasm32-wasip1-threads fallback of every napi-rs binding crate (native/*-node), or of
// the crates named: `node native/build-wasm.ts [mesh-node] [pdf-node]`. @napi-rs/cli writes
// <binaryName>.wasm32-wasi.wasm and the <binaryName>.wasi.cjs loader beside the crate; native/mesh.ts
// and native/pdf.ts load them when no native addon exists for the platform (or when told to with
// KILN_MESH_BACKEND=wasm / KILN_PDF_BACKEND=wasm). The loader needs @napi-rs/wasm-runtime at run time.
//
// Needs the Rust target (`rustup target add wasm32-wasip1-threads`) and, for meshoptimizer's C++,
// clang and wasm-ld (Debian: clang lld). No WASI C sysroot is needed: meshoptimizer includes only
// the crate's own wasm32 headers plus native/wasm/libm-decls.h, and Rust links WASI libc itself.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bindingCrates, napiBuild, nativeDir } from './napi-build.ts'

const target = 'wasm32-wasip1-threads'
const only = process.argv.slice(2)

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' })
if (!installed.stdout?.split('\n').includes(target))
  fail(`The Rust target ${target} is not installed: run \`rustup target add ${target}\` first.`)
for (const tool of ['clang', 'clang++', 'wasm-ld', 'llvm-ar'])
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
    fail(`${tool} is missing: install Debian's clang and lld (apt-get install clang lld).`)

// cc-rs reads per-target variables; meshoptimizer's objects must share memory with Rust's threads.
const cflags = `-matomics -mbulk-memory -include ${join(nativeDir, 'wasm', 'libm-decls.h')}`
const env = {
  ...process.env,
  CC_wasm32_wasip1_threads: 'clang',
  CXX_wasm32_wasip1_threads: 'clang++',
  AR_wasm32_wasip1_threads: 'llvm-ar',
  CFLAGS_wasm32_wasip1_threads: cflags,
  CXXFLAGS_wasm32_wasip1_threads: `${cflags} -fno-exceptions`,
  // No C++ standard library: meshoptimizer needs only operator new/delete (mesh-node/src/wasm_cxx.rs).
  CXXSTDLIB_wasm32_wasip1_threads: '',
}

for (const crate of bindingCrates(only)) {
  console.log(`building native/${crate} for ${target}`)
  // The type definitions are the native build's (tracked in git); the WASM build would rewrite them.
  const typesPath = join(nativeDir, crate, 'index.d.ts')
  const types = existsSync(typesPath) ? readFileSync(typesPath) : null
  const status = napiBuild(crate, ['--target', target], env)
  if (types) writeFileSync(typesPath, types)
  if (status !== 0) process.exit(status)
}
