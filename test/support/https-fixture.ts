// A real HTTPS server on 127.0.0.1 with a throwaway self-signed certificate for 127.0.0.1 and
// files.example.test, for the fetch tests. Each test registers the routes it needs.
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'

export type Route = (request: IncomingMessage, response: ServerResponse) => void

export interface HttpsFixture {
  port: number
  /** The self-signed certificate, to pass as the trusted CA. */
  ca: string
  routes: Map<string, Route>
  /** TCP connections accepted so far: a refused URL must leave this unchanged. */
  connections: () => number
  /** Host header and TLS server name of each request, in order. */
  seen: { host: string | undefined; servername: TLSSocket['servername'] }[]
  close: () => Promise<void>
}

export async function startHttpsFixture(): Promise<HttpsFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'kiln-tls-'))
  const keyPath = join(dir, 'key.pem')
  const certPath = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ['-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=kiln-test'],
      ['-addext', 'subjectAltName=IP:127.0.0.1,DNS:files.example.test'],
    ].flat(),
    { stdio: 'ignore' },
  )
  const [key, cert] = await Promise.all([readFile(keyPath, 'utf8'), readFile(certPath, 'utf8')])
  await rm(dir, { recursive: true, force: true })

  const routes = new Map<string, Route>()
  const seen: HttpsFixture['seen'] = []
  let connections = 0
  const server: Server = createServer({ key, cert }, (request, response) => {
    seen.push({ host: request.headers.host, servername: (request.socket as TLSSocket).servername })
    const route = routes.get(request.url ?? '')
    if (route) return route(request, response)
    response.writeHead(404).end('no such route')
  })
  server.on('connection', () => {
    connections++
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    ca: cert,
    routes,
    connections: () => connections,
    seen,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
