// Blobs as files under one root folder. Writes go to a temporary file first and are renamed into
// place once complete, so a reader never sees half a file and an aborted upload leaves nothing.
import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, normalize, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DomainError } from '../../domain/errors.ts'
import type { BlobStore, StoredBlob } from '../../domain/ports/blob-store.ts'
import { meter } from './meter.ts'

export class LocalBlobStore implements BlobStore {
  readonly #root: string

  constructor(root: string) {
    this.#root = normalize(root)
  }

  #path(key: string): string {
    const path = normalize(join(this.#root, key))
    if (!path.startsWith(this.#root + sep) || key.includes('\0'))
      throw new DomainError('invalid_request', 'Invalid file name.')
    return path
  }

  async put(key: string, body: Readable, { maxBytes = Number.POSITIVE_INFINITY } = {}): Promise<StoredBlob> {
    const target = this.#path(key)
    await mkdir(dirname(target), { recursive: true })
    const temporary = `${target}.${randomUUID()}.part`
    const metered = meter(maxBytes)
    try {
      await pipeline(body, metered.stream, createWriteStream(temporary))
      await rename(temporary, target)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
    return metered.result()
  }

  async putFile(key: string, sourcePath: string): Promise<StoredBlob> {
    return this.put(key, createReadStream(sourcePath))
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const target = this.#path(toKey)
    await mkdir(dirname(target), { recursive: true })
    await copyFile(this.#path(fromKey), target)
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const options = range ? { start: range.start, end: range.end - 1 } : {}
    return createReadStream(this.#path(key), options)
  }

  async readRange(key: string, start: number, length: number): Promise<Buffer> {
    const handle = await open(this.#path(key), 'r')
    try {
      const buffer = Buffer.alloc(length)
      const { bytesRead } = await handle.read(buffer, 0, length, start)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.#path(key))).size
    } catch {
      return null
    }
  }

  localPath(key: string): string | null {
    return this.#path(key)
  }

  async download(key: string, targetPath: string): Promise<void> {
    await copyFile(this.#path(key), targetPath)
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.#path(prefix), { recursive: true, force: true })
  }
}
