// Loads a napi-rs addon built by native/build.ts, or returns null when the binary is missing
// so the caller can fall back to the WASM build.
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const require = createRequire(import.meta.url)

export function loadNativeAddon<T>(crate: string, binaryName: string): T | null {
  return loadNativeBuild<T>(crate, binaryName)?.addon ?? null
}

/** The addon loaded, and the file it was loaded from (for a host process to load it too). */
export function loadNativeBuild<T>(crate: string, binaryName: string): { addon: T; path: string } | null {
  const path = addonPath(crate, binaryName)
  return path ? { addon: require(path) as T, path } : null
}

function addonPath(crate: string, binaryName: string): string | null {
  const dir = join(import.meta.dirname, crate)
  if (!existsSync(dir)) return null
  const platformTag = `${process.platform}-${process.arch}`
  const file = readdirSync(dir).find(
    (name) => name.startsWith(`${binaryName}.${platformTag}`) && name.endsWith('.node'),
  )
  return file ? join(dir, file) : null
}
