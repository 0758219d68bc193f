// What native/build.ts and native/build-wasm.ts share: which napi-rs binding crates there are
// (native/*-node, or those named), and one `napi build` of a crate in release mode, its output
// beside the crate and its objects in native/target.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const nativeDir = import.meta.dirname

/** The binding crates, or only those named in `only` when it is not empty. */
export function bindingCrates(only: readonly string[]): string[] {
  return readdirSync(nativeDir).filter(
    (name) =>
      name.endsWith('-node') &&
      existsSync(join(nativeDir, name, 'Cargo.toml')) &&
      (only.length === 0 || only.includes(name)),
  )
}

/**
 * `env` with clang++ as the compiler of the C++ sources the crates build with cc-rs, which reads
 * CXX (meshoptimizer, Basis Universal), where clang++ is installed and `env` names no compiler of
 * its own; else `env` as it is. Every build of the workspace passes through here (napiBuild, cargo.ts), so
 * the addons, kiln-mesh, the tests and the lints share one set of objects. clang's build of
 * meshoptimizer's collapser ran 5-7 % sooner than GCC 12's on the bench's simplify rows, with the
 * same output bytes on every row (`KILN_MESH_BASE=<gcc build> node bench/mesh/cpu.ts`, session 38).
 */
export function withCxx(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.CXX || spawnSync('sh', ['-c', 'command -v clang++'], { stdio: 'ignore' }).status !== 0) return env
  return { ...env, CXX: 'clang++' }
}

/** Runs `napi build --platform --release` for `crate` with `extraArgs`; its exit status. */
export function napiBuild(
  crate: string,
  extraArgs: readonly string[],
  env: NodeJS.ProcessEnv = withCxx(),
): number {
  const dir = join(nativeDir, crate)
  const result = spawnSync(
    join(nativeDir, '..', 'node_modules', '.bin', 'napi'),
    [
      'build',
      '--platform',
      '--release',
      ...extraArgs,
      '--manifest-path',
      join(dir, 'Cargo.toml'),
      '--package-json-path',
      join(dir, 'package.json'),
      '--output-dir',
      dir,
      '--target-dir',
      join(nativeDir, 'target'),
    ],
    { stdio: 'inherit', env },
  )
  return result.status ?? 1
}
