// What every blob store must do, run against the local folder and against S3 (versitygw): streamed
// writes with their size and hash, the size cap leaving nothing behind, ranged reads (the chunked text
// reads), copies, downloads to a local file, prefix deletes, and keys that try to leave their folder.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isDomainError } from '../../domain/errors.ts'
import type { BlobStore } from '../../domain/ports/blob-store.ts'

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** A body that arrives in many small chunks over time, as a network upload does. */
function trickle(data: Buffer, chunk = 64 * 1024): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < data.length; at += chunk) {
        yield data.subarray(at, at + chunk)
        if (at % (chunk * 32) === 0) await new Promise((resolve) => setImmediate(resolve))
      }
    })(),
  )
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return isDomainError(error) ? error.code : `not a domain error: ${String(error)}`
  }
  return 'resolved'
}

export function blobStoreContract(
  name: string,
  open: () => Promise<{ blobs: BlobStore; close(): Promise<void> }>,
) {
  describe(`blob store contract: ${name}`, () => {
    let blobs: BlobStore
    let close: () => Promise<void>
    let scratch: string
    beforeAll(async () => {
      ;({ blobs, close } = await open())
      scratch = await mkdtemp(join(tmpdir(), 'kiln-blob-contract-'))
    })
    afterAll(async () => {
      await close?.()
      await rm(scratch, { recursive: true, force: true })
    })

    it('stores a streamed body and reports its size and sha256', async () => {
      const data = randomBytes(300_000)
      const stored = await blobs.put('uploads/up_a/model.glb', trickle(data))
      expect(stored).toEqual({ bytes: data.length, sha256: sha256(data) })
      expect(await blobs.size('uploads/up_a/model.glb')).toBe(data.length)
      expect(await buffer(blobs.read('uploads/up_a/model.glb'))).toEqual(data)
    })

    it('stores a body larger than one multipart part without holding it whole', async () => {
      const data = randomBytes(20 * 1024 * 1024 + 12_345)
      const stored = await blobs.put('uploads/up_big/scan.ply', trickle(data, 256 * 1024))
      expect(stored).toEqual({ bytes: data.length, sha256: sha256(data) })
      expect(sha256(await buffer(blobs.read('uploads/up_big/scan.ply')))).toBe(sha256(data))
    })

    it('refuses a body over maxBytes with too_large and leaves nothing behind', async () => {
      const data = randomBytes(200_000)
      expect(
        await codeOf(blobs.put('uploads/up_b/huge.stl', trickle(data, 10_000), { maxBytes: 100_000 })),
      ).toBe('too_large')
      expect(await blobs.size('uploads/up_b/huge.stl')).toBeNull()
    })

    it('leaves nothing behind when the source fails midway', async () => {
      const failing = Readable.from(
        (async function* () {
          yield randomBytes(50_000)
          throw new Error('client went away')
        })(),
      )
      await expect(blobs.put('uploads/up_c/cut.obj', failing)).rejects.toThrow('client went away')
      expect(await blobs.size('uploads/up_c/cut.obj')).toBeNull()
    })

    it('reads byte ranges, and nothing past the end', async () => {
      const text = Buffer.from('héllo wörld, ünïcode ✓ and 𝄞 clefs'.repeat(100))
      await blobs.put('jobs/j_r/out/doc.txt', Readable.from([text]))
      expect(await blobs.readRange('jobs/j_r/out/doc.txt', 5, 40)).toEqual(text.subarray(5, 45))
      expect(await blobs.readRange('jobs/j_r/out/doc.txt', text.length - 10, 100)).toEqual(
        text.subarray(text.length - 10),
      )
      expect((await blobs.readRange('jobs/j_r/out/doc.txt', text.length, 100)).length).toBe(0)
      expect(await buffer(blobs.read('jobs/j_r/out/doc.txt', { start: 100, end: 300 }))).toEqual(
        text.subarray(100, 300),
      )
    })

    it('copies, downloads to a local file, and answers not_found for a missing blob', async () => {
      const data = randomBytes(70_000)
      await blobs.put('jobs/j_s/out/a.bin', Readable.from([data]))
      await blobs.copy('jobs/j_s/out/a.bin', 'jobs/j_t/input/a.bin')
      expect(await buffer(blobs.read('jobs/j_t/input/a.bin'))).toEqual(data)
      const target = join(scratch, 'a.bin')
      await blobs.download('jobs/j_t/input/a.bin', target)
      expect(await readFile(target)).toEqual(data)
      expect(await blobs.size('jobs/j_missing/x')).toBeNull()
      expect(await codeOf(blobs.readRange('jobs/j_missing/x', 0, 10))).toMatch(/not_found|ENOENT/)
      await expect(buffer(blobs.read('jobs/j_missing/x'))).rejects.toBeTruthy()
    })

    it('deletes everything under a prefix and nothing beside it', async () => {
      await blobs.put('jobs/j_d/out/one.txt', Readable.from([Buffer.from('1')]))
      await blobs.put('jobs/j_d/out/parts/two.txt', Readable.from([Buffer.from('2')]))
      await blobs.put('jobs/j_d2/out/keep.txt', Readable.from([Buffer.from('3')]))
      await blobs.deletePrefix('jobs/j_d')
      expect(await blobs.size('jobs/j_d/out/one.txt')).toBeNull()
      expect(await blobs.size('jobs/j_d/out/parts/two.txt')).toBeNull()
      expect(await blobs.size('jobs/j_d2/out/keep.txt')).toBe(1)
    })

    it('refuses keys that leave their folder', async () => {
      for (const key of ['../escape.txt', 'jobs/../../etc/passwd', 'jobs/j_x/\0nul'])
        expect(await codeOf(blobs.put(key, Readable.from([Buffer.from('x')])))).toBe('invalid_request')
    })

    it('serves a file written from disk', async () => {
      const source = join(scratch, 'source.pdf')
      const data = randomBytes(123_456)
      await writeFile(source, data)
      expect(await blobs.putFile('jobs/j_f/out/source.pdf', source)).toEqual({
        bytes: data.length,
        sha256: sha256(data),
      })
    })
  })
}
