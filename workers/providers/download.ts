// Provider results that come as URLs (fal's CDN files) are downloaded through the same SSRF guard as
// caller URLs: https only, every resolved address vetted and pinned. A provider answer is still
// outside data; a compromised or confused upstream must not make a worker fetch internal addresses.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBlobStore } from '../../adapters/blobs/local.ts'
import type { UrlPolicy } from '../../app/security/allowed-url.ts'
import { fetchToBlob } from '../../app/security/fetch-url.ts'
import { isDomainError } from '../../domain/errors.ts'
import { ProviderError } from './port.ts'

export interface DownloadPolicy extends UrlPolicy {
  maxBytes: number
  timeoutMs: number
  /** Extra trusted certificates (tests' local HTTPS server). */
  ca?: string
}

export async function downloadResult(
  provider: string,
  url: string,
  policy: DownloadPolicy,
): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'kiln-provider-'))
  try {
    await fetchToBlob(url, new LocalBlobStore(dir), 'result', policy)
    return await readFile(join(dir, 'result'))
  } catch (error) {
    const reason = isDomainError(error) ? error.message : String(error)
    throw new ProviderError('failed', provider, `The ${provider} result could not be downloaded: ${reason}`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
