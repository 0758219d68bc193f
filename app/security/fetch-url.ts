// Downloads a caller-supplied URL into the blob store without letting the caller reach anything but the
// public internet (SSRF). Every hop is parsed and vetted, the host is resolved here, every address it
// resolves to is checked, and the connection goes to those vetted addresses only: the socket's lookup
// returns them instead of asking DNS again, so a rebinding DNS server cannot swap in 127.0.0.1 between
// the check and the connect. TLS still verifies the certificate against the original host name.
import { lookup as dnsLookup } from 'node:dns/promises'
import type { IncomingMessage } from 'node:http'
import { request } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { pipeline, Transform } from 'node:stream'
import { DomainError, isDomainError } from '../../domain/errors.ts'
import type { BlobStore } from '../../domain/ports/blob-store.ts'
import { type AllowedUrl, addressRefusal, parseAllowedUrl, type UrlPolicy } from './allowed-url.ts'
import { downloadFilename } from './download-filename.ts'

export interface ResolvedAddress {
  address: string
  family: number
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>

/**
 * Server configuration, never request fields: only the URL comes from the caller. `allowedPorts`,
 * `allowAddresses` and `ca` exist so tests can fetch from a local HTTPS server.
 */
export interface FetchOptions extends UrlPolicy {
  maxBytes: number
  /** For the whole download: resolution, every redirect, and the body. */
  timeoutMs: number
  /** At most 5. */
  maxRedirects?: number
  resolver?: Resolver
  /** Certificates trusted instead of the system roots. */
  ca?: string | Buffer
}

export interface FetchedFile {
  bytes: number
  sha256: string
  filename: string
  contentType: string | null
}

const redirectLimit = 5
const redirectStatuses = new Set([301, 302, 303, 307, 308])
const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, order: 'verbatim' })

export async function fetchToBlob(
  url: string,
  blobs: BlobStore,
  key: string,
  options: FetchOptions,
): Promise<FetchedFile> {
  const deadline = new AbortController()
  const timer = setTimeout(
    () => deadline.abort(fetchFailed(`The download did not finish within ${options.timeoutMs} ms.`)),
    options.timeoutMs,
  )
  try {
    const { response, target } = await openFollowingRedirects(url, options, deadline.signal)
    return await store(response, target, blobs, key, options.maxBytes, deadline.signal)
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.signal.reason
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/** A small document (JSON metadata) fetched into memory under the same rules, redirects not followed. */
export interface FetchedDocument {
  status: number
  contentType: string | null
  cacheControl: string | null
  body: Buffer
}

export async function fetchDocument(url: string, options: FetchOptions): Promise<FetchedDocument> {
  const deadline = new AbortController()
  const timer = setTimeout(
    () => deadline.abort(fetchFailed(`The document did not arrive within ${options.timeoutMs} ms.`)),
    options.timeoutMs,
  )
  try {
    const target = parseAllowedUrl(url, options)
    const addresses = await vettedAddresses(target, options, deadline.signal)
    const response = await connect(target, addresses, options, deadline.signal, getRequest)
    try {
      const chunks: Buffer[] = []
      let received = 0
      for await (const chunk of response as AsyncIterable<Buffer>) {
        received += chunk.length
        if (received > options.maxBytes)
          throw new DomainError('too_large', `The document is larger than ${options.maxBytes} bytes.`)
        chunks.push(chunk)
      }
      return {
        status: response.statusCode ?? 0,
        contentType: response.headers['content-type'] ?? null,
        cacheControl: response.headers['cache-control'] ?? null,
        body: Buffer.concat(chunks),
      }
    } finally {
      response.destroy()
    }
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.signal.reason
    if (isDomainError(error)) throw error
    throw fetchFailed(`The document could not be read (${errorCode(error)}).`)
  } finally {
    clearTimeout(timer)
  }
}

async function openFollowingRedirects(url: string, options: FetchOptions, signal: AbortSignal) {
  const maxRedirects = Math.min(options.maxRedirects ?? redirectLimit, redirectLimit)
  let target = parseAllowedUrl(url, options)
  let addresses = await vettedAddresses(target, options, signal)
  for (let redirects = 0; ; redirects++) {
    const response = await connect(target, addresses, options, signal, getRequest)
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (redirectStatuses.has(status) && location !== undefined) {
      response.destroy()
      if (redirects >= maxRedirects) throw fetchFailed(`The URL redirected more than ${maxRedirects} times.`)
      target = redirectTarget(location, target, options)
      addresses = await vettedAddresses(target, options, signal).catch(asRedirectRefusal)
      continue
    }
    if (status < 200 || status > 299) {
      response.destroy()
      throw fetchFailed(`${target.host} answered HTTP ${status}.`)
    }
    return { response, target }
  }
}

function redirectTarget(location: string, from: AllowedUrl, options: FetchOptions): AllowedUrl {
  let next: URL
  try {
    next = new URL(location, from.url)
  } catch {
    throw fetchFailed(`${from.host} redirected to an invalid location.`)
  }
  try {
    return parseAllowedUrl(next.href, options)
  } catch (error) {
    return asRedirectRefusal(error)
  }
}

/** The caller gave a fine URL; say that it was where it led that was refused. */
function asRedirectRefusal(error: unknown): never {
  if (isDomainError(error) && error.code === 'url_not_allowed') {
    throw new DomainError('url_not_allowed', `A redirect was refused: ${error.message}`)
  }
  throw error
}

async function vettedAddresses(target: AllowedUrl, options: FetchOptions, signal: AbortSignal) {
  if (target.literalAddress !== null)
    return [{ address: target.literalAddress, family: isIP(target.literalAddress) }]
  let found: ResolvedAddress[]
  try {
    found = await abortable((options.resolver ?? systemResolver)(target.host), signal)
  } catch (error) {
    throw fetchFailed(`The DNS lookup of ${target.host} failed (${errorCode(error)}).`)
  }
  if (found.length === 0) throw fetchFailed(`The DNS lookup of ${target.host} found no address.`)
  // Every address, not just the first: the connection may fall back to any of them.
  for (const { address } of found) {
    const reason = addressRefusal(address, options.allowAddresses)
    if (reason) {
      throw new DomainError(
        'url_not_allowed',
        `The host ${target.host} resolves to ${address}, which is ${reason}.`,
      )
    }
  }
  return found.map(({ address }) => ({ address, family: isIP(address) }))
}

interface OutgoingRequest {
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body: string | null
}

const getRequest: OutgoingRequest = {
  method: 'GET',
  headers: { 'accept-encoding': 'identity', 'user-agent': 'kiln-fetch/1' },
  body: null,
}

/**
 * POSTs a body to a caller-registered URL (webhook deliveries) under the same rules as a download:
 * vetted scheme, host and every resolved address, pinned connection, no redirects followed. Answers
 * the status code; the response body is not read.
 */
export async function postToUrl(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: Omit<FetchOptions, 'maxBytes' | 'maxRedirects'>,
): Promise<{ status: number }> {
  const deadline = new AbortController()
  const timer = setTimeout(
    () => deadline.abort(fetchFailed(`${url} did not answer within ${options.timeoutMs} ms.`)),
    options.timeoutMs,
  )
  try {
    const target = parseAllowedUrl(url, options)
    const addresses = await vettedAddresses(target, { ...options, maxBytes: 0 }, deadline.signal)
    const response = await connect(target, addresses, { ...options, maxBytes: 0 }, deadline.signal, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      body,
    })
    response.destroy()
    return { status: response.statusCode ?? 0 }
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.signal.reason
    throw error
  } finally {
    clearTimeout(timer)
  }
}

function connect(
  target: AllowedUrl,
  addresses: ResolvedAddress[],
  options: FetchOptions,
  signal: AbortSignal,
  outgoingRequest: OutgoingRequest,
) {
  const pinnedLookup: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) return callback(null, addresses)
    const [first] = addresses
    callback(null, first?.address ?? '', first?.family)
  }
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request({
      host: target.host,
      port: target.port,
      path: target.url.pathname + target.url.search,
      method: outgoingRequest.method,
      headers: outgoingRequest.headers,
      // A private agent: no pooled socket from another request, and no proxy that would do its own DNS.
      agent: false,
      lookup: pinnedLookup,
      ca: options.ca,
      signal,
    })
    outgoing.on('response', resolve)
    outgoing.on('error', (error) => reject(connectionFailure(error, target.host)))
    outgoing.end(outgoingRequest.body ?? undefined)
  })
}

async function store(
  response: IncomingMessage,
  target: AllowedUrl,
  blobs: BlobStore,
  key: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchedFile> {
  const stopOnDeadline = () => response.destroy(signal.reason)
  signal.addEventListener('abort', stopOnDeadline, { once: true })
  try {
    const declared = Number(response.headers['content-length'])
    if (declared > maxBytes)
      throw new DomainError('too_large', `The file is ${declared} bytes; the limit is ${maxBytes}.`)
    // The store enforces maxBytes too, but this boundary should not depend on every adapter doing so.
    const stored = await blobs.put(key, pipeline(response, byteLimit(maxBytes), ignore), { maxBytes })
    return {
      ...stored,
      filename: downloadFilename(response.headers['content-disposition'], target.url),
      contentType: response.headers['content-type']?.split(';')[0]?.trim().toLowerCase() || null,
    }
  } catch (error) {
    if (isDomainError(error)) throw error
    throw fetchFailed(`The connection to ${target.host} broke during the download (${errorCode(error)}).`)
  } finally {
    signal.removeEventListener('abort', stopOnDeadline)
    response.destroy()
  }
}

function byteLimit(maxBytes: number): Transform {
  let received = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length
      if (received > maxBytes)
        return callback(new DomainError('too_large', `The file is larger than ${maxBytes} bytes.`))
      callback(null, chunk)
    },
  })
}

// Errors travel on to the blob store through the returned stream; pipeline still wants a callback.
const ignore = () => {}

function connectionFailure(error: Error, host: string): DomainError {
  const code = errorCode(error)
  if (/CERT|SSL|TLS|EPROTO/.test(code)) return fetchFailed(`The TLS handshake with ${host} failed (${code}).`)
  return fetchFailed(`Could not connect to ${host} (${code}).`)
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

const errorCode = (error: unknown) =>
  (error as { code?: unknown })?.code?.toString() ?? (error instanceof Error ? error.message : String(error))

const fetchFailed = (message: string) => new DomainError('fetch_failed', message)
