import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBlobStore } from '../../adapters/blobs/local.ts'
import { blobStoreContract } from './blob-store-contract.ts'

blobStoreContract('local folder', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kiln-blobs-'))
  return { blobs: new LocalBlobStore(root), close: () => rm(root, { recursive: true, force: true }) }
})
