import { z } from 'zod'

export const randomBytesOptions = z.strictObject({
  length: z.int().min(1).max(64).default(32).describe('How many bytes (1 to 64).'),
  encoding: z.enum(['hex', 'base64']).default('hex').describe('How the bytes are written in the result.'),
  label: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('A name for what the bytes are for; kept with them (and bound to them when sealed).'),
  recipient_public_key: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'a raw 32-byte X25519 public key in base64')
    .optional()
    .describe(
      'X25519 public key (32 raw bytes, base64). When given, the bytes are sealed to it and the service never keeps them in the clear.',
    ),
})
export type RandomBytesOptions = z.infer<typeof randomBytesOptions>
