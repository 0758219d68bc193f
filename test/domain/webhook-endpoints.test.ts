// The webhook endpoint decider as a specification, and the retry schedule's shape.
import { describe, expect, it } from 'vitest'
import { maxWebhookEndpoints, webhookEndpointsDecider } from '../../domain/webhook/decide.ts'
import type { WebhookEndpointEvent } from '../../domain/webhook/events.ts'
import { maxDeliveryAttempts, retryDelayMs } from '../../domain/webhook/retry-schedule.ts'
import { specFor } from '../support/given-when-then.ts'

const given = specFor(webhookEndpointsDecider)
const accountId = 'acct_1'
const at = '2026-11-24T12:00:00.000Z'
const now = Date.parse(at)
const added = (endpointId: string): WebhookEndpointEvent => ({
  type: 'WebhookEndpointAdded',
  data: {
    accountId,
    endpointId,
    url: 'https://hooks.example.com/a',
    events: ['job.failed'],
    secret: 'whsec_a',
    at,
  },
})

describe('webhook endpoints', () => {
  it('adds an endpoint, up to the limit', () => {
    given([])
      .when({
        type: 'AddWebhookEndpoint',
        data: {
          accountId,
          endpointId: 'we_1',
          url: 'https://x.example/h',
          events: ['job.succeeded'],
          secret: 's',
          now,
        },
      })
      .then([
        {
          type: 'WebhookEndpointAdded',
          data: {
            accountId,
            endpointId: 'we_1',
            url: 'https://x.example/h',
            events: ['job.succeeded'],
            secret: 's',
            at,
          },
        },
      ])
    const full = Array.from({ length: maxWebhookEndpoints }, (_, i) => added(`we_${i}`))
    given(full)
      .when({
        type: 'AddWebhookEndpoint',
        data: { accountId, endpointId: 'we_x', url: 'https://x.example/h', events: [], secret: 's', now: 0 },
      })
      .thenError('conflict')
  })

  it('rotates and removes only endpoints that exist', () => {
    given([added('we_1')])
      .when({
        type: 'RotateWebhookSecret',
        data: { accountId, endpointId: 'we_1', secret: 'whsec_b', now },
      })
      .then([
        { type: 'WebhookSecretRotated', data: { accountId, endpointId: 'we_1', secret: 'whsec_b', at } },
      ])
    given([])
      .when({
        type: 'RotateWebhookSecret',
        data: { accountId, endpointId: 'we_1', secret: 'whsec_b', now: 0 },
      })
      .thenError('not_found')
    given([added('we_1'), { type: 'WebhookEndpointRemoved', data: { accountId, endpointId: 'we_1', at } }])
      .when({ type: 'RemoveWebhookEndpoint', data: { accountId, endpointId: 'we_1', now: 0 } })
      .thenError('not_found')
  })

  it('disables once, and not at all once removed', () => {
    const disable = {
      type: 'DisableWebhookEndpoint' as const,
      data: { accountId, endpointId: 'we_1', reason: 'failing', now },
    }
    given([added('we_1')])
      .when(disable)
      .then([
        { type: 'WebhookEndpointDisabled', data: { accountId, endpointId: 'we_1', reason: 'failing', at } },
      ])
    given([
      added('we_1'),
      { type: 'WebhookEndpointDisabled', data: { accountId, endpointId: 'we_1', reason: 'x', at } },
    ])
      .when(disable)
      .thenNothing()
    given([]).when(disable).thenNothing()
  })

  it('ignores the account events it shares the stream with', () => {
    const state = webhookEndpointsDecider.evolve(webhookEndpointsDecider.initialState(), {
      type: 'JobCharged',
      data: { accountId, jobId: 'j', amount: 1 },
    })
    expect(state.endpoints.size).toBe(0)
  })
})

describe('the retry schedule', () => {
  it('grows each time and spans about a day', () => {
    const delays = Array.from({ length: maxDeliveryAttempts - 1 }, (_, i) => retryDelayMs(i + 1)!)
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!)
    const totalHours = delays.reduce((sum, delay) => sum + delay, 0) / 3_600_000
    expect(totalHours).toBeGreaterThan(20)
    expect(totalHours).toBeLessThan(28)
    expect(retryDelayMs(maxDeliveryAttempts)).toBeNull()
  })
})
