// Loads a napi-rs addon built by native/build.ts, or returns null when the binary is missing
// so the caller can fall back to the WASM build.
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const require = createRequire(import.meta.url)

export function loadNativeAddon<T>(crate: string, binaryName: string): T | null {
  const dir = join(import.meta.dirname, crate)
  if (!existsSync(dir)) return null
  const platformTag = `${process.platform}-${process.arch}`
  const file = readdirSync(dir).find(
    (name) => name.startsWith(`${binaryName}.${platformTag}`) && name.endsWith('.node'),
  )
  return file ? (require(join(dir, file)) as T) : null
}
