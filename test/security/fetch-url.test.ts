// fetchToBlob against a real HTTPS server on 127.0.0.1. Every refused URL must fail before any
// connection: the server's connection count stays put and no name reaches the resolver it should not.
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LocalBlobStore } from '../../adapters/blobs/local.ts'
import { type FetchOptions, fetchToBlob, type Resolver } from '../../app/security/fetch-url.ts'
import { DomainError } from '../../domain/errors.ts'
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture.ts'

let server: HttpsFixture
let root: string
let blobs: LocalBlobStore
let resolved: string[]
let connectionsBefore: number

/** Answers only for the names a test maps; any other lookup is a failure of the test. */
const resolverFor =
  (names: Record<string, string[]>): Resolver =>
  async (host) => {
    resolved.push(host)
    const addresses = names[host]
    if (!addresses) throw Object.assign(new Error(`unexpected lookup of ${host}`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }

/** The test server's trust settings: exactly its own address, port and certificate. */
const trusting = (extra: Partial<FetchOptions> = {}): FetchOptions => ({
  maxBytes: 10_000,
  timeoutMs: 2_000,
  allowedPorts: [server.port],
  allowAddresses: new Set(['127.0.0.1']),
  ca: server.ca,
  resolver: resolverFor({ 'files.example.test': ['127.0.0.1'] }),
  ...extra,
})

const local = (path: string) => `https://127.0.0.1:${server.port}${path}`

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(DomainError)
  return error as DomainError
}

async function storedFiles(): Promise<string[]> {
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((e) => e.name)
}

beforeAll(async () => {
  server = await startHttpsFixture()
})
afterAll(() => server.close())
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-fetch-'))
  blobs = new LocalBlobStore(root)
  resolved = []
  connectionsBefore = server.connections()
  server.routes.clear()
  server.seen.length = 0
})
afterEach(() => rm(root, { recursive: true, force: true }))

describe('refused before any connection (url_not_allowed)', () => {
  const refusedUrls = () => [
    'https://127.0.0.1/',
    `https://127.0.0.1:${server.port}/`,
    'https://localhost/',
    `https://localhost:${server.port}/`,
    'https://[::1]/',
    'https://10.0.0.1/',
    'https://192.168.1.1/',
    'https://172.16.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.1.1/',
    'https://[fe80::1]/',
    'https://[fd00:ec2::254]/',
    'https://100.100.100.200/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://[::ffff:127.0.0.1]/',
    `https://[::ffff:127.0.0.1]:${server.port}/`,
    'https://[::ffff:7f00:1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::a00:1]/',
    'https://2130706433/',
    `https://2130706433:${server.port}/`,
    'https://0x7f000001/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://017700000001/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
  ]

  it('refuses loopback, private, link-local, metadata, IPv6-mapped and integer-encoded hosts', async () => {
    // The test policy allows 127.0.0.1 and its port: these must be refused anyway, because the
    // exemption is for that exact address, and none of these spell it that way.
    const strict = trusting({ allowAddresses: new Set() })
    for (const url of refusedUrls()) {
      const error = await failure(fetchToBlob(url, blobs, 'in/file', strict))
      expect(error.code, url).toBe('url_not_allowed')
    }
    expect(resolved).toEqual([])
    expect(server.connections()).toBe(connectionsBefore)
    expect(await storedFiles()).toEqual([])
  })

  it('says why, with the address the URL parser normalised the host to', async () => {
    const strict = { maxBytes: 10, timeoutMs: 1000 }
    expect((await failure(fetchToBlob('https://2130706433/', blobs, 'k', strict))).message).toBe(
      'The host 127.0.0.1 is loopback.',
    )
    expect((await failure(fetchToBlob('https://169.254.169.254/', blobs, 'k', strict))).message).toMatch(
      /metadata/,
    )
    expect((await failure(fetchToBlob('https://[::ffff:10.0.0.1]/', blobs, 'k', strict))).message).toMatch(
      /private \(10\.0\.0\.1 in IPv4-mapped IPv6 form\)/,
    )
  })

  it('refuses http and other schemes, credentials and unexpected ports', async () => {
    const options = { maxBytes: 10, timeoutMs: 1000 }
    for (const url of [
      `http://127.0.0.1:${server.port}/`,
      'http://example.com/',
      'ftp://example.com/file',
      'file:///etc/passwd',
      'https://user:secret@example.com/',
      'https://example.com:8443/',
      'not a url',
    ]) {
      expect((await failure(fetchToBlob(url, blobs, 'k', options))).code, url).toBe('url_not_allowed')
    }
    expect(server.connections()).toBe(connectionsBefore)
  })

  it('refuses a host name when any address it resolves to is private', async () => {
    const resolver = resolverFor({
      'evil.example.test': ['10.0.0.1'],
      'mixed.example.test': ['127.0.0.1', '192.168.1.1'],
      'mapped.example.test': ['::ffff:127.0.0.1'],
    })
    for (const host of ['evil.example.test', 'mixed.example.test', 'mapped.example.test']) {
      const error = await failure(
        fetchToBlob(`https://${host}:${server.port}/`, blobs, 'k', trusting({ resolver })),
      )
      expect(error.code, host).toBe('url_not_allowed')
      expect(error.message).toMatch(new RegExp(`^The host ${host} resolves to`))
    }
    expect(resolved).toEqual(['evil.example.test', 'mixed.example.test', 'mapped.example.test'])
    expect(server.connections()).toBe(connectionsBefore)
  })

  it('refuses a redirect to a private, loopback or plain-http URL, checking the new host again', async () => {
    const redirects: Record<string, string> = {
      '/to-private': 'https://10.0.0.1/admin',
      '/to-metadata': 'https://169.254.169.254/latest/meta-data/',
      '/to-mapped-loopback': `https://[::ffff:127.0.0.1]:${server.port}/`,
      '/to-private-name': `https://intranet.example.test:${server.port}/`,
      '/to-http': `http://127.0.0.1:${server.port}/`,
    }
    for (const [path, location] of Object.entries(redirects)) {
      server.routes.set(path, (_request, response) => response.writeHead(302, { location }).end())
    }
    const resolver = resolverFor({ 'intranet.example.test': ['192.168.1.1'] })
    for (const path of Object.keys(redirects)) {
      const error = await failure(fetchToBlob(local(path), blobs, 'k', trusting({ resolver })))
      expect(error.code, path).toBe('url_not_allowed')
      expect(error.message).toMatch(/^A redirect was refused: /)
    }
    expect(resolved).toEqual(['intranet.example.test'])
    expect(server.seen).toHaveLength(Object.keys(redirects).length)
    expect(await storedFiles()).toEqual([])
  })
})

describe('downloads from the vetted address', () => {
  const body = Buffer.from('solid cube\nendsolid cube\n')

  it('stores the body with its size, hash, file name and content type', async () => {
    server.routes.set('/models/cube.stl?v=2', (_request, response) =>
      response.writeHead(200, { 'content-type': 'model/stl; charset=binary' }).end(body),
    )
    const fetched = await fetchToBlob(local('/models/cube.stl?v=2'), blobs, 'jobs/j1/input', trusting())
    expect(fetched).toEqual({
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      filename: 'cube.stl',
      contentType: 'model/stl',
    })
    expect(await readFile(join(root, 'jobs/j1/input'))).toEqual(body)
  })

  it('resolves a name once and connects to that address, with the name as Host and TLS server name', async () => {
    server.routes.set('/a.txt', (_request, response) => response.end('hello'))
    const fetched = await fetchToBlob(
      `https://files.example.test:${server.port}/a.txt`,
      blobs,
      'k',
      trusting(),
    )
    expect(fetched.bytes).toBe(5)
    // One lookup, by us: a second, system lookup of this name would have failed (.test does not exist).
    expect(resolved).toEqual(['files.example.test'])
    expect(server.seen).toEqual([
      { host: `files.example.test:${server.port}`, servername: 'files.example.test' },
    ])
  })

  it('takes the file name from Content-Disposition, reduced to a bare name', async () => {
    const names: Record<string, string> = {
      '/d1': 'attachment; filename="../../etc/model.obj"',
      '/d2': `attachment; filename*=UTF-8''caf%C3%A9%20plan.pdf; filename="fallback.pdf"`,
      '/d3': 'attachment; filename=".."',
    }
    for (const [path, disposition] of Object.entries(names)) {
      server.routes.set(path, (_request, response) =>
        response.writeHead(200, { 'content-disposition': disposition }).end('x'),
      )
    }
    const filenames = []
    for (const path of Object.keys(names))
      filenames.push((await fetchToBlob(local(path), blobs, path, trusting())).filename)
    expect(filenames).toEqual(['model.obj', 'café plan.pdf', 'download'])
  })

  it('follows up to five redirects, relative or absolute, and names the file after the final URL', async () => {
    for (let hop = 1; hop <= 5; hop++) {
      const next =
        hop === 5 ? `https://files.example.test:${server.port}/files/final%20name.glb` : `/hop${hop + 1}`
      server.routes.set(`/hop${hop}`, (_request, response) =>
        response.writeHead(hop % 2 ? 301 : 307, { location: next }).end(),
      )
    }
    server.routes.set('/files/final%20name.glb', (_request, response) => response.end(body))
    const fetched = await fetchToBlob(local('/hop1'), blobs, 'k', trusting())
    expect(fetched.filename).toBe('final name.glb')
    expect(fetched.bytes).toBe(body.length)
    expect(server.seen).toHaveLength(6)
  })

  it('gives up after five redirects (fetch_failed)', async () => {
    server.routes.set('/loop', (_request, response) => response.writeHead(302, { location: '/loop' }).end())
    const error = await failure(fetchToBlob(local('/loop'), blobs, 'k', trusting()))
    expect(error.code).toBe('fetch_failed')
    expect(error.message).toMatch(/more than 5 times/)
    expect(server.seen).toHaveLength(6)
  })
})

describe('limits and failures', () => {
  it('refuses a declared Content-Length above the limit before reading the body (too_large)', async () => {
    server.routes.set('/big', (_request, response) => {
      response.writeHead(200, { 'content-length': '20000' })
      response.write(Buffer.alloc(1000))
    })
    const error = await failure(fetchToBlob(local('/big'), blobs, 'in/big', trusting({ maxBytes: 10_000 })))
    expect(error.code).toBe('too_large')
    expect(error.message).toMatch(/20000 bytes/)
    expect(await storedFiles()).toEqual([])
  })

  it('aborts a body that grows past the limit while streaming and leaves nothing behind (too_large)', async () => {
    let written = 0
    server.routes.set('/endless', (_request, response) => {
      const chunk = Buffer.alloc(4096, 1)
      const pump = () => {
        while (!response.destroyed && written < 1_000_000 && response.write(chunk)) written += chunk.length
      }
      response.on('drain', pump)
      pump()
    })
    const error = await failure(
      fetchToBlob(local('/endless'), blobs, 'in/endless', trusting({ maxBytes: 10_000 })),
    )
    expect(error.code).toBe('too_large')
    expect(await storedFiles()).toEqual([])
    expect(written).toBeLessThan(1_000_000)
  })

  it('enforces the limit itself, even with a blob store that would take everything', async () => {
    server.routes.set('/chunked', (_request, response) => {
      response.write(Buffer.alloc(8000))
      response.end(Buffer.alloc(8000))
    })
    const lenient = new LocalBlobStore(root)
    const put = lenient.put.bind(lenient)
    lenient.put = (key, body) => put(key, body)
    const error = await failure(
      fetchToBlob(local('/chunked'), lenient, 'in/chunked', trusting({ maxBytes: 10_000 })),
    )
    expect(error.code).toBe('too_large')
    expect(await storedFiles()).toEqual([])
  })

  it('enforces the total time limit, while waiting for headers and while reading the body (fetch_failed)', async () => {
    server.routes.set('/silent', () => {})
    server.routes.set('/trickle', (_request, response) => {
      response.writeHead(200)
      response.write('first bytes, then nothing')
    })
    for (const path of ['/silent', '/trickle']) {
      const started = performance.now()
      const error = await failure(fetchToBlob(local(path), blobs, `in${path}`, trusting({ timeoutMs: 300 })))
      expect(error.code, path).toBe('fetch_failed')
      expect(error.message).toBe('The download did not finish within 300 ms.')
      expect(performance.now() - started).toBeLessThan(1500)
    }
    expect(await storedFiles()).toEqual([])
  })

  it('counts the time spent resolving towards the limit', async () => {
    const stuck: Resolver = () => new Promise(() => {})
    const error = await failure(
      fetchToBlob('https://slow.example.test/', blobs, 'k', trusting({ resolver: stuck, timeoutMs: 200 })),
    )
    expect(error.message).toBe('The download did not finish within 200 ms.')
  })

  it('turns a non-2xx answer into fetch_failed with the status', async () => {
    server.routes.set('/gone', (_request, response) => response.writeHead(410).end('gone'))
    for (const [path, status] of [
      ['/gone', 410],
      ['/missing', 404],
    ] as const) {
      const error = await failure(fetchToBlob(local(path), blobs, 'k', trusting()))
      expect(error.code).toBe('fetch_failed')
      expect(error.message).toBe(`127.0.0.1 answered HTTP ${status}.`)
    }
    expect(await storedFiles()).toEqual([])
  })

  it('reports TLS failures: an untrusted certificate, and a certificate for another name', async () => {
    server.routes.set('/a', (_request, response) => response.end('a'))
    const untrusted = await failure(fetchToBlob(local('/a'), blobs, 'k', trusting({ ca: undefined })))
    expect(untrusted.code).toBe('fetch_failed')
    expect(untrusted.message).toMatch(/^The TLS handshake with 127\.0\.0\.1 failed \(\w+\)\.$/)

    const resolver = resolverFor({ 'other.example.test': ['127.0.0.1'] })
    const mismatch = await failure(
      fetchToBlob(`https://other.example.test:${server.port}/a`, blobs, 'k', trusting({ resolver })),
    )
    expect(mismatch.message).toBe(
      'The TLS handshake with other.example.test failed (ERR_TLS_CERT_ALTNAME_INVALID).',
    )
    expect(server.seen).toEqual([])
  })

  it('reports DNS failures and refused connections', async () => {
    const noName = await failure(fetchToBlob('https://nowhere.example.test/', blobs, 'k', trusting()))
    expect(noName.code).toBe('fetch_failed')
    expect(noName.message).toBe('The DNS lookup of nowhere.example.test failed (ENOTFOUND).')

    const empty = await failure(
      fetchToBlob(
        'https://empty.example.test/',
        blobs,
        'k',
        trusting({ resolver: resolverFor({ 'empty.example.test': [] }) }),
      ),
    )
    expect(empty.message).toBe('The DNS lookup of empty.example.test found no address.')

    const probe = createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    const closedPort = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const refused = await failure(
      fetchToBlob(`https://127.0.0.1:${closedPort}/`, blobs, 'k', trusting({ allowedPorts: [closedPort] })),
    )
    expect(refused.code).toBe('fetch_failed')
    expect(refused.message).toBe('Could not connect to 127.0.0.1 (ECONNREFUSED).')
  })
})
