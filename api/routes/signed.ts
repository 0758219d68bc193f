// Routes authorised by their signed URL instead of a Bearer token: the upload PUT and downloads.
import type { Readable } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jobOutputKey } from '../../app/context.ts'
import { verifySignedPath } from '../../app/security/signed-url.ts'
import { receiveUpload } from '../../app/uploads.ts'
import { DomainError } from '../../domain/errors.ts'
import { contentTypeOf } from '../../domain/media-types.ts'
import { getJobRecord } from '../../projections/jobs/queries.ts'
import { storedBytesOf } from '../account-storage.ts'
import { attachmentDisposition } from '../content-disposition.ts'
import { minimumBodyRate } from '../minimum-body-rate.ts'
import { errors } from '../schemas.ts'
import { downloadPath, uploadPath } from '../signed-paths.ts'
import { SignedPutGate } from '../signed-put-gate.ts'

const signedQuery = z.looseObject({ expires: z.string().optional(), sig: z.string().optional() })

export const signedRoutes: FastifyPluginAsyncZod = async (app) => {
  // Whatever its Content-Type, an uploaded file is streamed, never parsed.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
  const { signingSecret } = app.services.ctx.config
  const gate = new SignedPutGate(app.services.ctx.config.signedPuts)

  app.put(
    '/v1/uploads/:id/file',
    {
      schema: {
        tags: ['uploads'],
        summary: 'PUT the file to a signed upload URL (with Content-Length)',
        security: [],
        params: z.object({ id: z.string().max(64) }),
        querystring: signedQuery,
        response: {
          200: z.object({ upload_id: z.string(), bytes: z.int(), sha256: z.string() }),
          ...errors(400, 403, 408, 409, 411, 413, 429),
        },
      },
    },
    async (request, reply) => {
      const { ctx } = app.services
      try {
        gate.admitRequest(request.ip, ctx.now())
        verifySignedPath(signingSecret, 'PUT', uploadPath(request.params.id), request.query, ctx.now())
        const length = request.headers['content-length']
        if (length === undefined)
          throw new DomainError('length_required', 'Send the file with a Content-Length header.')
        const declared = Number(length)
        if (!Number.isSafeInteger(declared) || declared < 0)
          throw new DomainError('invalid_request', 'Content-Length must be a whole number of bytes.')
        const body = request.body as Readable | undefined
        if (!body || typeof (body as { pipe?: unknown }).pipe !== 'function')
          throw new DomainError(
            'invalid_request',
            'Send the file as the raw body (Content-Type application/octet-stream).',
          )
        const release = gate.enter(request.params.id, request.ip)
        try {
          const guarded = minimumBodyRate({
            bytesPerSecond: ctx.config.signedPuts.minBytesPerSecond,
            graceMs: ctx.config.signedPuts.graceMs,
          })
          body.once('error', (error) => guarded.destroy(error))
          body.pipe(guarded)
          const { state, position } = await receiveUpload(
            ctx,
            request.params.id,
            guarded,
            declared,
            storedBytesOf(app.services),
          )
          // The stored bytes count once the PUT is answered: the next PUT's cap check and the
          // account's next read of Me come from the storage model.
          await app.services.waitForPosition(position)
          return {
            upload_id: request.params.id,
            bytes: state.received!.bytes,
            sha256: state.received!.sha256,
          }
        } finally {
          release()
        }
      } catch (error) {
        // The rest of a refused body is not read: the connection ends with the answer.
        reply.header('connection', 'close')
        throw error
      }
    },
  )

  app.get(
    '/v1/downloads/:jobId/*',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Download an output file from its signed URL',
        security: [],
        params: z.object({ jobId: z.string().max(64), '*': z.string().max(1024) }),
        querystring: signedQuery,
        response: { ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const name = request.params['*']
      verifySignedPath(
        signingSecret,
        'GET',
        downloadPath(request.params.jobId, name),
        request.query,
        app.services.ctx.now(),
      )
      const job = await getJobRecord(app.services.models, request.params.jobId)
      const file = job?.result?.files.find((f) => f.name === name)
      const expired =
        !job ||
        job.status === 'expired' ||
        (job.outputsExpireAt !== null && app.services.ctx.now() >= Date.parse(job.outputsExpireAt))
      if (!file || expired) throw new DomainError('not_found', 'No such file (outputs expire).')
      const key = jobOutputKey(request.params.jobId, name)
      if ((await app.services.ctx.blobs.size(key)) === null)
        throw new DomainError('not_found', 'No such file (outputs expire).')
      reply.header('content-type', contentTypeOf(name))
      reply.header('content-length', String(file.bytes))
      reply.header('content-disposition', attachmentDisposition(name))
      return reply.send(app.services.ctx.blobs.read(key) as never)
    },
  )
}
