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

/** Runs `napi build --platform --release` for `crate` with `extraArgs`; its exit status. */
export function napiBuild(
  crate: string,
  extraArgs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
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
