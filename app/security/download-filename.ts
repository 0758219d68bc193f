// The name a fetched file goes by: it tells tools the file type when the content type does not. It
// comes from the remote server, so it is reduced to a bare, printable file name before anyone uses it.

const fallback = 'download'
const maxLength = 200

export function downloadFilename(contentDisposition: string | undefined, finalUrl: URL): string {
  return sanitize(fromContentDisposition(contentDisposition ?? '') ?? lastSegment(finalUrl.pathname))
}

function fromContentDisposition(header: string): string | null {
  // RFC 6266: the extended, percent-encoded filename* wins over the plain one.
  const extended = /filename\*\s*=\s*[^']*'[^']*'([^;\s]+)/i.exec(header)?.[1]
  if (extended) return decode(extended)
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header)
  if (plain) return plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2] ?? null
  return null
}

const lastSegment = (path: string) => decode(path.slice(path.lastIndexOf('/') + 1))

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function sanitize(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1).replace(/\p{Cc}/gu, '')
  const trimmed = base.trim().slice(-maxLength)
  return trimmed === '' || trimmed === '.' || trimmed === '..' ? fallback : trimmed
}
