// Chunked text reads cut only between characters: over text mixing 1-, 2-, 3- and 4-byte UTF-8
// characters, every client offset (inside characters too) and every chunk size from the smallest
// allowed, the chunks decode without a replacement character and put back together the exact text.
import { describe, expect, it } from 'vitest'
import { characterBounds } from '../../app/jobs/read-file-chunk.ts'

const text = 'a é € 𝄞 ü中文 😀 bb 𐍈ñ 𝄞𝄞 z'.repeat(7)
const bytes = Buffer.from(text, 'utf8')

/** What readFileChunk does with a read of `limit` + 3 bytes from `offset`. */
function chunk(offset: number, limit: number) {
  const start = Math.min(offset, bytes.length)
  const read = bytes.subarray(start, start + Math.min(limit + 3, bytes.length - start))
  const { begin, end } = characterBounds(read, limit)
  return { offset: start + begin, next: start + end, text: read.subarray(begin, end).toString('utf8') }
}

describe('chunk boundaries in UTF-8 text', () => {
  it('has characters of every width in its sample', () => {
    const widths = new Set([...text].map((c) => Buffer.byteLength(c)))
    expect([...widths].sort()).toEqual([1, 2, 3, 4])
  })

  it.each([16, 17, 18, 19, 23, 64])('reads the whole text back in chunks of %i bytes', (limit) => {
    let offset = 0
    let rebuilt = ''
    while (offset < bytes.length) {
      const part = chunk(offset, limit)
      expect(part.text).not.toContain('\uFFFD')
      expect(part.next).toBeGreaterThan(offset)
      expect(Buffer.byteLength(part.text)).toBe(part.next - part.offset)
      rebuilt += part.text
      offset = part.next
    }
    expect(rebuilt).toBe(text)
  })

  it('moves a client offset inside a character forward to the next character', () => {
    for (let offset = 0; offset < bytes.length; offset++) {
      const part = chunk(offset, 16)
      expect(part.text).not.toContain('\uFFFD')
      expect(part.offset).toBeGreaterThanOrEqual(offset)
      // The reported offset is a character start: the text before it decodes cleanly.
      expect(bytes.subarray(0, part.offset).toString('utf8')).not.toContain('\uFFFD')
      expect(part.offset - offset).toBeLessThan(4)
    }
  })

  it('never ends a chunk inside a 4-byte character', () => {
    for (let offset = 0; offset < bytes.length; offset++) {
      const { next } = chunk(offset, 16)
      expect(bytes.subarray(0, next).toString('utf8')).not.toContain('\uFFFD')
    }
  })
})
