// Requests exactly as written, for headers that fetch would refuse or normalise (a malformed Host,
// raw UTF-8 in a header, an odd Content-Type), answered as status, headers and body.
import { once } from 'node:events'
import { connect } from 'node:net'

export interface RawAnswer {
  status: number
  headers: string
  body: string
}

export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string = '',
): Promise<RawAnswer> {
  const { port } = new URL(baseUrl)
  const socket = connect(Number(port), '127.0.0.1')
  await once(socket, 'connect')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => {})
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body)
  const all: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    ...(payload.length > 0 || method !== 'GET' ? { 'content-length': String(payload.length) } : {}),
    ...headers,
  }
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.write(Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}\r\n`, 'latin1'), payload]))
  await Promise.race([
    new Promise<void>((resolve) => socket.once('close', () => resolve())),
    new Promise((resolve) => setTimeout(resolve, 10_000)),
  ])
  socket.destroy()
  const raw = Buffer.concat(chunks).toString('utf8')
  const split = raw.indexOf('\r\n\r\n')
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0),
    headers: split < 0 ? raw : raw.slice(0, split),
    body: split < 0 ? '' : raw.slice(split + 4),
  }
}

/** A raw header value from UTF-8 text (HTTP sends bytes; fetch would refuse anything past Latin-1). */
export const utf8Header = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
