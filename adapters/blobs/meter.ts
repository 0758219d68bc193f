// What every blob store does to a body on its way in: count it, hash it, and stop it with too_large
// the moment it passes the cap, before the rest is read.
import { createHash } from 'node:crypto'
import { Transform } from 'node:stream'
import { DomainError } from '../../domain/errors.ts'
import type { StoredBlob } from '../../domain/ports/blob-store.ts'

export interface Meter {
  stream: Transform
  /** Size and SHA-256 of what passed through; read once the body is complete. */
  result(): StoredBlob
}

export function meter(maxBytes: number): Meter {
  const hash = createHash('sha256')
  let bytes = 0
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      if (bytes > maxBytes)
        return callback(new DomainError('too_large', `The file is larger than ${maxBytes} bytes.`))
      hash.update(chunk)
      callback(null, chunk)
    },
  })
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex') }) }
}
