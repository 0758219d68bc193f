// The pixel size of a PNG, JPEG or WebP, read from its header: enough to refuse an oversized image
// before anything is charged or sent upstream, without decoding it.

export interface ImageInfo {
  format: 'png' | 'jpeg' | 'webp'
  mimeType: string
  width: number
  height: number
}

const ascii = (bytes: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...bytes.subarray(start, start + length))

function png(bytes: Uint8Array, view: DataView): ImageInfo | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b) || ascii(bytes, 12, 4) !== 'IHDR')
    return null
  return { format: 'png', mimeType: 'image/png', width: view.getUint32(16), height: view.getUint32(20) }
}

/** Walks the marker segments to the first start-of-frame; SOF0–SOF15 except DHT (C4), JPG (C8), DAC (CC). */
function jpeg(bytes: Uint8Array, view: DataView): ImageInfo | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null
  let offset = 2
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null
    const marker = bytes[offset + 1]!
    if (marker === 0xff) {
      offset++
      continue
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        format: 'jpeg',
        mimeType: 'image/jpeg',
        height: view.getUint16(offset + 5),
        width: view.getUint16(offset + 7),
      }
    }
    offset += 2 + view.getUint16(offset + 2)
  }
  return null
}

function webp(bytes: Uint8Array, view: DataView): ImageInfo | null {
  if (bytes.length < 30 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WEBP') return null
  const info = (width: number, height: number): ImageInfo => ({
    format: 'webp',
    mimeType: 'image/webp',
    width,
    height,
  })
  const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)
  switch (ascii(bytes, 12, 4)) {
    case 'VP8 ':
      return info(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff)
    case 'VP8L': {
      const bits = view.getUint32(21, true)
      return info((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1)
    }
    case 'VP8X':
      return info(u24(24) + 1, u24(27) + 1)
    default:
      return null
  }
}

export function imageInfo(bytes: Uint8Array): ImageInfo | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return png(bytes, view) ?? jpeg(bytes, view) ?? webp(bytes, view)
}
