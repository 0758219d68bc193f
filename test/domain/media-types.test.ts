// The one table of media types: downloads, console files and MCP resource links read the same entry.
import { describe, expect, it } from 'vitest'
import { contentTypeOf, mediaTypeOf } from '../../domain/media-types.ts'

describe('media types', () => {
  it('name model, image, document and console files by extension, case aside', () => {
    expect(['a.glb', 'b.PLY', 'c.webp', 'd.pdf', 'e.mjs'].map(mediaTypeOf)).toEqual([
      'model/gltf-binary',
      'application/x-ply',
      'image/webp',
      'application/pdf',
      'text/javascript',
    ])
    expect(mediaTypeOf('archive.rar')).toBeUndefined()
  })

  it('say text is UTF-8 in a Content-Type, and unknown files are plain bytes', () => {
    expect(contentTypeOf('pages/1.md')).toBe('text/markdown; charset=utf-8')
    expect(contentTypeOf('parts.zip')).toBe('application/zip')
    expect(contentTypeOf('blob.bin')).toBe('application/octet-stream')
  })
})
