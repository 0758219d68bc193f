// Files: uploads, fetched inputs and job outputs. Keys are slash-separated paths.
import type { Readable } from 'node:stream'

export interface StoredBlob {
  bytes: number
  sha256: string
}

export interface BlobStore {
  /** Streams into the key while hashing; fails with too_large past maxBytes, leaving nothing behind. */
  put(key: string, body: Readable, options?: { maxBytes?: number }): Promise<StoredBlob>
  putFile(key: string, sourcePath: string): Promise<StoredBlob>
  copy(fromKey: string, toKey: string): Promise<void>
  /** A readable of the whole blob or a byte range [start, end). Throws not_found when missing. */
  read(key: string, range?: { start: number; end: number }): Readable
  readRange(key: string, start: number, length: number): Promise<Buffer>
  size(key: string): Promise<number | null>
  /** A local file path for workers (the local adapter); null when the blob must be downloaded. */
  localPath(key: string): string | null
  /** Copies the blob to a local file (workers use it when localPath is null). Throws not_found. */
  download(key: string, targetPath: string): Promise<void>
  /** Deletes every blob under the prefix. */
  deletePrefix(prefix: string): Promise<void>
}
