// A body that must keep up a minimum average rate once a grace period is over. A client trickling a
// byte every few seconds would otherwise hold a connection, a file handle and a place for as long
// as it likes; the stream fails with request_timeout instead, and the caller closes the connection.
import { Transform } from 'node:stream'
import { DomainError } from '../domain/errors.ts'

export function minimumBodyRate({ bytesPerSecond, graceMs }: { bytesPerSecond: number; graceMs: number }) {
  const started = Date.now()
  let bytes = 0
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      callback(null, chunk)
    },
  })
  const check = setInterval(
    () => {
      const elapsedMs = Date.now() - started
      if (elapsedMs < graceMs || bytes >= (bytesPerSecond * elapsedMs) / 1000) return
      clearInterval(check)
      guard.destroy(
        new DomainError(
          'request_timeout',
          `The body arrived at less than ${bytesPerSecond} bytes per second; the upload was stopped.`,
        ),
      )
    },
    Math.min(1000, graceMs),
  )
  check.unref()
  guard.once('close', () => clearInterval(check))
  guard.once('end', () => clearInterval(check))
  return guard
}
