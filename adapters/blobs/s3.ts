import { createReadStream, createWriteStream } from 'node:fs'
import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { DomainError } from '../../domain/errors.ts'
import type { BlobStore, StoredBlob } from '../../domain/ports/blob-store.ts'
import { meter } from './meter.ts'

/** Parts of 8 MiB, four in flight: at most 32 MiB buffered per upload, whatever its size. */
const partSize = 8 * 1024 * 1024
const queueSize = 4

export interface S3Location {
  bucket: string
  /** Key prefix without a leading or trailing slash; '' for the bucket's root. */
  prefix: string
}

/** Parses `s3://bucket/optional/prefix`; anything else is a configuration error. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url)
  if (!match) throw new Error(`BLOBS_URL must look like s3://bucket/prefix; got ${url}`)
  return { bucket: match[1]!, prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') }
}

const isMissing = (error: unknown) =>
  error instanceof NoSuchKey ||
  error instanceof NotFound ||
  (error as { name?: string }).name === 'NotFound' ||
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404

const notFound = () => new DomainError('not_found', 'No such file.')

export class S3BlobStore implements BlobStore {
  readonly #client: S3Client
  readonly #bucket: string
  readonly #prefix: string

  constructor(location: S3Location, clientConfig: S3ClientConfig = {}) {
    // Path-style addressing works with every S3-compatible server; AWS itself still accepts it.
    this.#client = new S3Client({ forcePathStyle: true, ...clientConfig })
    this.#bucket = location.bucket
    this.#prefix = location.prefix
  }

  #key(key: string): string {
    const parts = key.split('/')
    if (key.includes('\0') || parts.some((part) => part === '' || part === '.' || part === '..'))
      throw new DomainError('invalid_request', 'Invalid file name.')
    return this.#prefix ? `${this.#prefix}/${key}` : key
  }

  async put(key: string, body: Readable, { maxBytes = Number.POSITIVE_INFINITY } = {}): Promise<StoredBlob> {
    const objectKey = this.#key(key)
    const metered = meter(maxBytes)
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: objectKey, Body: metered.stream },
      partSize,
      queueSize,
      leavePartsOnError: false,
    })
    // The source's failure (too_large, a closed connection) must abort the upload, not complete it
    // with what arrived so far: the meter is destroyed, and the uploader rejects.
    const feeding = pipeline(body, metered.stream).catch((error: unknown) => {
      void upload.abort().catch(() => {})
      throw error
    })
    const [fed, uploaded] = await Promise.allSettled([feeding, upload.done()])
    if (fed.status === 'rejected') throw fed.reason
    if (uploaded.status === 'rejected') throw uploaded.reason
    return metered.result()
  }

  async putFile(key: string, sourcePath: string): Promise<StoredBlob> {
    return this.put(key, createReadStream(sourcePath))
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    try {
      await this.#client.send(
        new CopyObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(toKey),
          CopySource: `${this.#bucket}/${encodeURI(this.#key(fromKey))}`,
        }),
      )
    } catch (error) {
      if (isMissing(error)) throw notFound()
      throw error
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const objectKey = this.#key(key)
    const out = new PassThrough()
    const request = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: objectKey,
      Range: range ? `bytes=${range.start}-${range.end - 1}` : undefined,
    })
    this.#client.send(request).then(
      (response) => {
        const body = response.Body as Readable | undefined
        if (!body) return out.end()
        body.on('error', (error) => out.destroy(error))
        body.pipe(out)
      },
      (error: unknown) => out.destroy(isMissing(error) ? notFound() : (error as Error)),
    )
    return out
  }

  async readRange(key: string, start: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0)
    try {
      const response = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(key),
          Range: `bytes=${start}-${start + length - 1}`,
        }),
      )
      return Buffer.from((await response.Body?.transformToByteArray()) ?? [])
    } catch (error) {
      if (isMissing(error)) throw notFound()
      // A range that starts at or past the end is 416: nothing to read there.
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416)
        return Buffer.alloc(0)
      throw error
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }),
      )
      return head.ContentLength ?? 0
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  /** Objects have no local path: workers copy the input down with download(). */
  localPath(): string | null {
    return null
  }

  async download(key: string, targetPath: string): Promise<void> {
    await pipeline(this.read(key), createWriteStream(targetPath))
  }

  async deletePrefix(prefix: string): Promise<void> {
    const listPrefix = `${this.#key(prefix)}/`
    let continuationToken: string | undefined
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: listPrefix,
          ContinuationToken: continuationToken,
        }),
      )
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []))
      if (keys.length > 0)
        await this.#client.send(
          new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys, Quiet: true } }),
        )
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (continuationToken)
  }

  close(): void {
    this.#client.destroy()
  }
}
