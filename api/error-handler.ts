// One place that turns any failure into the spec's `{error: {code, message}}` with its status, and
// Retry-After on 429 and 503.
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { clientSafeText } from '../app/security/client-safe-text.ts'
import { DomainError, type ErrorCode, errorCatalog, isDomainError } from '../domain/errors.ts'
import { bearerChallenge, insufficientScopeChallenge } from './protected-resource.ts'

/** What a client reads of an internal failure: a stable text and the id under which it was logged. */
export const internalMessage = (requestId: string | undefined) =>
  requestId ? `Internal error; the log has the detail under request id ${requestId}.` : 'Internal error.'

function fromFastify(error: FastifyError): DomainError {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const details = error.validation
      .slice(0, 5)
      .map(
        (issue) =>
          `${issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || error.validationContext || 'request'}: ${issue.message}`,
      )
      .join('; ')
    return new DomainError('invalid_request', `Invalid ${error.validationContext ?? 'request'}: ${details}.`)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('invalid_json', 'The body is not valid JSON.')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('too_large', 'The request body is too large.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('invalid_request', 'Unsupported Content-Type.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('invalid_request', 'Content-Length does not match the body.')
  }
  if (error instanceof SyntaxError || error.name === 'SyntaxError')
    return new DomainError('invalid_json', 'The body is not valid JSON.')
  if (error.statusCode === 413) return new DomainError('too_large', 'The request body is too large.')
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return new DomainError('invalid_request', clientSafeText(error.message))
  return new DomainError('internal', 'Internal error.')
}

function sendError(reply: FastifyReply, domain: DomainError): FastifyReply {
  const status = errorCatalog[domain.code as ErrorCode]?.status ?? 500
  if (domain.retryAfterSeconds !== undefined) reply.header('retry-after', String(domain.retryAfterSeconds))
  else if (status === 429 || domain.code === 'busy') reply.header('retry-after', '5')
  const message =
    domain.code === 'internal' ? internalMessage(reply.request.id) : clientSafeText(domain.message)
  return reply.status(status).send({ error: { code: domain.code, message } })
}

/**
 * Fastify's `frameworkErrors` option: a malformed or overlong path fails before routing, where the
 * error handler does not run, and would otherwise answer in Fastify's own format (414 for a long
 * path segment, a status the spec does not have).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const domain =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new DomainError('invalid_request', 'A path segment is too long.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new DomainError('invalid_request', 'The path is not a valid URL.')
        : fromFastify(error)
  void sendError(reply, domain)
}

/**
 * Fastify's `clientErrorHandler` option: a request Node's HTTP parser refuses (headers or URL past
 * its 16 KiB, a malformed request line or header, a body that did not arrive in time) never
 * reaches Fastify's routes or error handler, and was answered in Fastify's own format. Here it is
 * answered in the spec's: 400 invalid_request, or 408 for the timeout (the status clients and
 * proxies know to retry on), then the connection closes.
 */
export function clientErrors(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request did not arrive in time; send it again.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [400, 'Bad Request', 'The request line and headers are larger than the 16 KiB the server reads.']
        : [400, 'Bad Request', 'The request is not valid HTTP/1.1.']
  const body = JSON.stringify({ error: { code: 'invalid_request', message } })
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    )
  socket.destroy()
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const domain = isDomainError(error) ? error : fromFastify(error)
    if (domain.code === 'internal')
      request.log.error({ err: error, requestId: request.id }, 'unhandled error')
    if (domain.status === 401 && app.hasDecorator('services'))
      reply.header(
        'www-authenticate',
        bearerChallenge(app.services.ctx.config, request.url, request.headers.authorization !== undefined),
      )
    const requiredScope = domain.details?.requiredScope
    if (domain.status === 403 && typeof requiredScope === 'string' && app.hasDecorator('services'))
      reply.header(
        'www-authenticate',
        insufficientScopeChallenge(app.services.ctx.config, request.url, requiredScope),
      )
    return sendError(reply, domain)
  })
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({
      error: { code: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.` },
    })
  })
}
