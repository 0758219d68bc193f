// What a client reads of an error (issue 20 item 18): server paths, stack frames and errno names are
// taken out of a message; our own plain messages and public URLs pass unchanged.
import { describe, expect, it } from 'vitest'
import { clientSafeText, genericInternalMessage } from '../../app/security/client-safe-text.ts'

describe('clientSafeText', () => {
  it.each([
    [
      "ENOENT: no such file or directory, open '/tmp/kiln-j_abc/input.glb'",
      "file error: no such file or directory, open '<path>'",
    ],
    ['boom\n    at load (/work/main/workers/tools/mesh.ts:10:3)\n    at next (node:internal)', 'boom'],
    ['ENAMETOOLONG /data/blobs/uploads/x', 'file error <path>'],
    ['write failed (errno -28, syscall write)', 'write failed (, )'],
    ['C:\\kiln\\data\\blob failed', '<path> failed'],
  ])('cleans %j', (message, expected) => {
    expect(clientSafeText(message)).toBe(expected)
  })

  it.each([
    'Uploads are limited to 52428800 bytes.',
    'Give a public https URL such as https://example.com/models/a.glb.',
    'filename must be a plain file name of 1 to 255 characters, such as model.glb.',
    'The body is not valid JSON.',
  ])('keeps %j', (message) => {
    expect(clientSafeText(message)).toBe(message)
  })

  it('never answers with an empty message', () => {
    expect(clientSafeText('\n    at x (/a/b.ts:1:1)')).toBe(genericInternalMessage)
  })
})
