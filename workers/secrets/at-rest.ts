// Encryption at rest of secret blobs: AES-256-GCM under one service key kept in the data folder (like
// the URL signing secret), with the blob key as additional data so a file cannot be moved under
// another name and still open. Layout: magic ‖ 12-byte nonce ‖ ciphertext ‖ 16-byte tag.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { secretFile } from '../../app/security/secret-file.ts'

const magic = Buffer.from('KILNSEC1')
const nonceBytes = 12
const tagBytes = 16

/**
 * The at-rest key: AT_REST_KEY when configured (processes on several machines share it), otherwise
 * generated once and kept as `secrets.key` (mode 0600), shared by the processes sharing the folder.
 */
export function atRestKey(dataDir: string, configured: string | null = null): Buffer {
  if (configured !== null) {
    const key = Buffer.from(configured, 'base64url')
    if (key.length !== 32) throw new Error('AT_REST_KEY must be 32 bytes in base64url (43 characters)')
    return key
  }
  const path = join(dataDir, 'secrets.key')
  const key = Buffer.from(
    secretFile(path, () => randomBytes(32).toString('base64url')),
    'base64url',
  )
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte key`)
  return key
}

export function encryptAtRest(key: Buffer, blobKey: string, plaintext: Buffer): Buffer {
  const nonce = randomBytes(nonceBytes)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(blobKey))
  return Buffer.concat([magic, nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
}

export function decryptAtRest(key: Buffer, blobKey: string, stored: Buffer): Buffer {
  if (!stored.subarray(0, magic.length).equals(magic)) throw new Error(`${blobKey} is not an encrypted blob`)
  const nonce = stored.subarray(magic.length, magic.length + nonceBytes)
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAAD(Buffer.from(blobKey))
  decipher.setAuthTag(stored.subarray(stored.length - tagBytes))
  return Buffer.concat([
    decipher.update(stored.subarray(magic.length + nonceBytes, stored.length - tagBytes)),
    decipher.final(),
  ])
}
