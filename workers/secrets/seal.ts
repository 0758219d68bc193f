// Sealing a secret to a caller's X25519 public key, so only the holder of the private key can read it
// and the service never keeps the plaintext. Format `x25519-hkdf-sha256-aes256gcm-v1`:
//   shared    = X25519(ephemeral private key, recipient public key)
//   key       = HKDF-SHA256(ikm = shared, salt = ephemeral public ‖ recipient public, info = sealInfo, 32 bytes)
//   sealed    = AES-256-GCM(key, nonce, plaintext, aad = label as UTF-8 or empty) with the 16-byte tag appended
// Binding both public keys in the salt ties the key to this exchange; the label as AAD stops a sealed
// value from being passed off under another label.
import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto'

export const sealFormat = 'x25519-hkdf-sha256-aes256gcm-v1'
const sealInfo = Buffer.from('kiln sealed secret v1')
const tagBytes = 16

export interface SealedEnvelope {
  format: typeof sealFormat
  /** Raw 32-byte X25519 public key of the one-off sender key, base64. */
  ephemeral_public_key: string
  /** 12-byte AES-GCM nonce, base64. */
  nonce: string
  /** AES-256-GCM ciphertext followed by its 16-byte tag, base64. */
  ciphertext: string
}

/** Imports a raw 32-byte X25519 public key given in base64; throws on anything else. */
export function x25519PublicKey(base64: string): KeyObject {
  const raw = Buffer.from(base64, 'base64')
  if (raw.length !== 32) throw new RangeError('an X25519 public key is 32 raw bytes in base64')
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') }, format: 'jwk' })
}

export const rawPublicKey = (key: KeyObject) => Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url')

function deriveKey(shared: Buffer, ephemeralPublic: Buffer, recipientPublic: Buffer): Buffer {
  return Buffer.from(
    hkdfSync('sha256', shared, Buffer.concat([ephemeralPublic, recipientPublic]), sealInfo, 32),
  )
}

export function seal(plaintext: Uint8Array, recipient: KeyObject, label: string | null): SealedEnvelope {
  const ephemeral = generateKeyPairSync('x25519')
  const ephemeralPublic = rawPublicKey(ephemeral.publicKey)
  const key = deriveKey(
    diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }),
    ephemeralPublic,
    rawPublicKey(recipient),
  )
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(label ?? '', 'utf8'))
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
  return {
    format: sealFormat,
    ephemeral_public_key: ephemeralPublic.toString('base64'),
    nonce: nonce.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  }
}

/** What the recipient runs; throws when the envelope was altered or is not for this key. */
export function openSealed(envelope: SealedEnvelope, privateKey: KeyObject, label: string | null): Buffer {
  const ephemeralPublic = Buffer.from(envelope.ephemeral_public_key, 'base64')
  const recipientPublic = rawPublicKey(createPublicKey(privateKey))
  const shared = diffieHellman({ privateKey, publicKey: x25519PublicKey(envelope.ephemeral_public_key) })
  const decipher = createDecipheriv(
    'aes-256-gcm',
    deriveKey(shared, ephemeralPublic, recipientPublic),
    Buffer.from(envelope.nonce, 'base64'),
  )
  const sealed = Buffer.from(envelope.ciphertext, 'base64')
  decipher.setAAD(Buffer.from(label ?? '', 'utf8'))
  decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes))
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - tagBytes)), decipher.final()])
}
