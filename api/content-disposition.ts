// The Content-Disposition of a download (RFC 6266): the file's own name for clients that read
// `filename*` (RFC 8187, UTF-8 percent-encoded), and a plain-ASCII stand-in in `filename` for those
// that do not. A header value must be Latin-1, so a Cyrillic or CJK name sent as is would break the
// response; here it never reaches the header unencoded.
export function attachmentDisposition(path: string): string {
  const name = path.split('/').at(-1) ?? 'download'
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return ascii === name
    ? `attachment; filename="${name}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
