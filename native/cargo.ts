// Every cargo build of the project shares one object tree. @napi-rs/cli always passes
// `--target <host triple>`, which puts the addons' objects in native/target/<triple>/; a build without
// `--target` (the kiln-mesh command, `cargo test`, clippy) would compile every crate again in
// native/target/release/. So the command, the Rust tests and the lints name the host triple too.
//   node native/cargo.ts <cargo subcommand and arguments>
// runs cargo on native/Cargo.toml for the host triple, e.g. `node native/cargo.ts test --release --workspace`.
import { execFileSync, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { nativeDir, withCxx } from './napi-build.ts'

let triple: string | undefined

/** The host's target triple, as rustc reports it (the one @napi-rs/cli builds for). */
export function hostTriple(): string {
  triple ??= /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
  if (!triple) throw new Error('rustc -vV did not name the host triple')
  return triple
}

/** Where the release build of the kiln-mesh command (native/mesh-cli) lands. */
export function kilnMeshPath(): string {
  try {
    return join(nativeDir, 'target', hostTriple(), 'release', 'kiln-mesh')
  } catch {
    // No Rust toolchain here: nothing was built either; callers find no file and say so.
    return join(nativeDir, 'target', 'release', 'kiln-mesh')
  }
}

/** Runs `cargo <subcommand> <args>` on the workspace, for the host triple; its exit status. */
export function cargo(subcommand: string, args: readonly string[]): number {
  const result = spawnSync(
    'cargo',
    [subcommand, '--manifest-path', join(nativeDir, 'Cargo.toml'), '--target', hostTriple(), ...args],
    { stdio: 'inherit', env: withCxx() },
  )
  return result.status ?? 1
}

/**
 * Builds the kiln-mesh command (native/mesh-cli) in release mode; its exit status. On Linux with
 * glibc it is linked statically (`crt-static`): a dynamically linked kiln-mesh spent about half a
 * millisecond of each run loading and relocating libc, libm and libgcc_s, a tenth of a
 * small model's whole run (session 52). The flag goes to the command's own crate only (`cargo
 * rustc`), so it still shares every library's objects with the addons, which Node loads and which
 * stay dynamic. `cargo test` links the command again without the flag (its tests run it); this
 * links it back, and is a no-op when it is up to date.
 */
export function buildKilnMesh(): number {
  const command = ['--release', '-p', 'mesh-cli', '--bin', 'kiln-mesh']
  if (!hostTriple().endsWith('-linux-gnu')) return cargo('rustc', command)
  const status = cargo('rustc', [...command, '--', '-C', 'target-feature=+crt-static'])
  if (status === 0) return 0
  // A system without glibc's static archives (libc6-dev): the command as every other build links it.
  // (A compile error fails the same way again, with cargo's message.)
  console.error(
    'kiln-mesh: the static build failed (without libc6-dev it cannot link); building it dynamically',
  )
  return cargo('rustc', command)
}

if (process.argv[1] === import.meta.filename) {
  const [subcommand, ...args] = process.argv.slice(2)
  if (!subcommand) {
    console.error('usage: node native/cargo.ts <cargo subcommand> [arguments]')
    process.exit(2)
  }
  process.exit(cargo(subcommand, args))
}
