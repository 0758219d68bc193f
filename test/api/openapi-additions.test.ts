// The OpenAPI document covers the webhook endpoints, the status stream, quotes and Prefer: wait,
// each with zod-derived response schemas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../api/app.ts'
import { startTestService, type TestService } from '../support/service.ts'

describe('OpenAPI for webhooks, waiting, the status stream and quotes', () => {
  let service: TestService
  let document: {
    paths: Record<
      string,
      Record<
        string,
        { responses: Record<string, unknown>; parameters?: { name: string; in: string; schema?: unknown }[] }
      >
    >
    components: { schemas: Record<string, unknown> }
  }

  beforeAll(async () => {
    service = await startTestService({}, { consumeJobs: false })
    const app = await buildApp({ services: service.services })
    document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    await app.close()
  })
  afterAll(() => service.close())

  it('documents every new operation with its response schema', () => {
    const operations: [string, string, string][] = [
      ['/v1/webhook_endpoints', 'post', '201'],
      ['/v1/webhook_endpoints', 'get', '200'],
      ['/v1/webhook_endpoints/{id}', 'get', '200'],
      ['/v1/webhook_endpoints/{id}', 'delete', '200'],
      ['/v1/webhook_endpoints/{id}/rotate_secret', 'post', '200'],
      ['/v1/webhook_endpoints/{id}/deliveries', 'get', '200'],
      ['/v1/webhook_endpoints/{id}/deliveries/{delivery}/redeliver', 'post', '202'],
      ['/v1/jobs/{id}/events', 'get', '200'],
      ['/v1/tools/{tool}/quote', 'post', '200'],
    ]
    for (const [path, method, status] of operations) {
      const operation = document.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toBeDefined()
      expect(operation!.responses[status], `${method} ${path} ${status}`).toBeDefined()
    }
    for (const schema of ['WebhookEndpoint', 'WebhookEndpointWithSecret', 'WebhookDelivery', 'Quote'])
      expect(document.components.schemas[schema], schema).toBeDefined()
  })

  it('documents Prefer on job creation and GET /v1/jobs/{id}, and Last-Event-ID on the stream', () => {
    const headerNames = (path: string, method: string) =>
      (document.paths[path]![method]!.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name)
    expect(headerNames('/v1/jobs/{id}', 'get')).toContain('prefer')
    expect(headerNames('/v1/tools/{tool}/jobs', 'post')).toContain('prefer')
    expect(headerNames('/v1/jobs/{id}/events', 'get')).toContain('last-event-id')
  })

  it('documents the integer query parameters as integers with their bounds', () => {
    const query = (path: string, name: string) =>
      document.paths[path]!.get!.parameters!.find((p) => p.in === 'query' && p.name === name)?.schema
    expect(query('/v1/jobs', 'limit')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    })
    expect(query('/v1/jobs', 'before')).toMatchObject({ type: 'integer', minimum: 0 })
    expect(
      query('/v1/jobs/{id}/files/{*}', 'offset') ?? query('/v1/jobs/{id}/files/*', 'offset'),
    ).toMatchObject({
      type: 'integer',
      minimum: 0,
    })
  })
})
