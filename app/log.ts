// The service's log: JSON lines only (pino, the logger Fastify uses), so every line of every process
// parses the same way; HTTP request lines carry the request's id as `reqId`. LOG_LEVEL=silent turns
// it off.
import { pino } from 'pino'

export type Logger = pino.Logger

/** Signed URLs carry their signature in the query: a log line keeps the URL, never the signature. */
export const redactSignature = (url: string) => url.replace(/([?&]sig=)[^&#]*/g, '$1REDACTED')

function requestForLog(request: {
  method?: string
  url?: string
  ip?: string
  headers?: Record<string, unknown>
}) {
  return {
    method: request.method,
    url: redactSignature(request.url ?? ''),
    host: request.headers?.host,
    remoteAddress: request.ip,
  }
}

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', name = 'kiln'): Logger {
  // An unknown level is reported by the configuration check; the log itself must still come up to say so.
  const known = level === 'silent' || level in pino.levels.values
  return pino({
    level: known ? level : 'info',
    name,
    base: { pid: process.pid },
    serializers: {
      req: requestForLog,
      res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
    },
  })
}

/** The process's log, for the code that runs inside the service (entry points may make their own). */
export const log: Logger = createLogger()
