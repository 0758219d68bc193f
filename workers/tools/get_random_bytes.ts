// Random bytes are a secret, so they never go into the job's result (the event log keeps results
// forever). They are written to `secret/random_bytes.json`, a secret output: encrypted at rest by the
// blob store (workers/secrets/secret-blob-store.ts) and expired after 5 minutes (workers/tools/retention.ts).
// With recipient_public_key the file holds only a sealed envelope (workers/secrets/seal.ts): the
// plaintext lives in this isolated process's memory and nowhere else.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DomainError } from '../../domain/errors.ts'
import type { ToolRunner } from '../../domain/ports/tool-runner.ts'
import type { RandomBytesOptions } from '../../domain/tools/options/get_random_bytes.ts'
import { seal, sealFormat, x25519PublicKey } from '../secrets/seal.ts'

export const secretFile = 'secret/random_bytes.json'

export const runner: ToolRunner<RandomBytesOptions> = {
  async measure(_input, { recipient_public_key }) {
    // A low-order point (e.g. all zeros) gives no shared secret; refuse it before anything is charged.
    if (recipient_public_key) {
      try {
        seal(Buffer.alloc(0), x25519PublicKey(recipient_public_key), null)
      } catch {
        throw new DomainError('invalid_options', 'recipient_public_key is not a usable X25519 public key.', {
          hint: 'Send the raw 32-byte public key of a key pair you generated, in base64.',
        })
      }
    }
    return { units: 1 }
  },
  async run(_input, { length, encoding, label = null, recipient_public_key }, context) {
    const bytes = Buffer.from(context.randomBytes(length))
    const content = recipient_public_key
      ? { sealed: seal(bytes, x25519PublicKey(recipient_public_key), label), label, length }
      : // The salt keeps the file's sha256, which the job result records, from being searched back to a short secret.
        {
          bytes: bytes.toString(encoding),
          encoding,
          label,
          length,
          hash_salt: Buffer.from(context.randomBytes(16)).toString('base64'),
        }
    bytes.fill(0)
    await mkdir(join(context.outDir, 'secret'), { recursive: true })
    await writeFile(join(context.outDir, secretFile), JSON.stringify(content))
    return {
      summary: {
        length,
        encoding,
        label,
        sealed: recipient_public_key ? { format: sealFormat, recipient_public_key } : null,
        file: secretFile,
        source: 'csprng',
      },
    }
  },
}
