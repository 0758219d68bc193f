// A blob store decorator that keeps secret job outputs encrypted at rest. A job output is secret when
// it sits in a `secret/` folder of the job's outputs (e.g. get_random_bytes' `secret/random_bytes.json`):
// it is encrypted on the way in and decrypted on the way out, so readers (file chunks, signed
// downloads) see the plaintext while the disk never does. Secret outputs are tiny, so they are handled
// in memory. Everything else passes through untouched.

import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { DomainError } from '../../domain/errors.ts'
import type { BlobStore, StoredBlob } from '../../domain/ports/blob-store.ts'
import { decryptAtRest, encryptAtRest } from './at-rest.ts'

export const isSecretBlob = (key: string) => /^jobs\/[^/]+\/out\/secret\//.test(key)

/** Secrets are a few hundred bytes; anything larger is not one. */
const maxSecretBytes = 64 * 1024

export class SecretBlobStore implements BlobStore {
  readonly #inner: BlobStore
  readonly #key: Buffer

  constructor(inner: BlobStore, key: Buffer) {
    this.#inner = inner
    this.#key = key
  }

  async put(key: string, body: Readable, options?: { maxBytes?: number }): Promise<StoredBlob> {
    if (!isSecretBlob(key)) return this.#inner.put(key, body, options)
    return this.#putSecret(key, await buffer(body))
  }

  async putFile(key: string, sourcePath: string): Promise<StoredBlob> {
    if (!isSecretBlob(key)) return this.#inner.putFile(key, sourcePath)
    return this.#putSecret(key, await readFile(sourcePath))
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    if (!isSecretBlob(fromKey) && !isSecretBlob(toKey)) return this.#inner.copy(fromKey, toKey)
    // A copy would leave the secret in the clear under a job's input.
    throw new DomainError('invalid_request', 'Secret outputs cannot be used as the input of another job.')
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    if (!isSecretBlob(key)) return this.#inner.read(key, range)
    const load = () => this.#plaintext(key)
    return Readable.from(
      (async function* () {
        const plain = await load()
        yield range ? plain.subarray(range.start, range.end) : plain
      })(),
    )
  }

  async readRange(key: string, start: number, length: number): Promise<Buffer> {
    if (!isSecretBlob(key)) return this.#inner.readRange(key, start, length)
    return (await this.#plaintext(key)).subarray(start, start + length)
  }

  async size(key: string): Promise<number | null> {
    if (!isSecretBlob(key)) return this.#inner.size(key)
    if ((await this.#inner.size(key)) === null) return null
    return (await this.#plaintext(key)).length
  }

  /** Nobody may read a secret straight from disk: it is ciphertext there. */
  localPath(key: string): string | null {
    return isSecretBlob(key) ? null : this.#inner.localPath(key)
  }

  async download(key: string, targetPath: string): Promise<void> {
    if (isSecretBlob(key))
      throw new DomainError('invalid_request', 'Secret outputs cannot be used as the input of another job.')
    return this.#inner.download(key, targetPath)
  }

  deletePrefix(prefix: string): Promise<void> {
    return this.#inner.deletePrefix(prefix)
  }

  async #putSecret(key: string, plain: Buffer): Promise<StoredBlob> {
    if (plain.length > maxSecretBytes)
      throw new DomainError('too_large', `A secret output holds at most ${maxSecretBytes} bytes.`)
    await this.#inner.put(key, Readable.from([encryptAtRest(this.#key, key, plain)]))
    return { bytes: plain.length, sha256: createHash('sha256').update(plain).digest('hex') }
  }

  async #plaintext(key: string): Promise<Buffer> {
    return decryptAtRest(this.#key, key, await buffer(this.#inner.read(key)))
  }
}
