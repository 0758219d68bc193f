// A webhook receiver as an account would run one: a real HTTPS server on 127.0.0.1 (the shared TLS
// fixture) that verifies every delivery with the standardwebhooks package, answers 204 to a good one
// and 400 to a bad signature, and can be taken "down" (connections dropped) and brought back.
import type { IncomingMessage } from 'node:http'
import { request } from 'node:https'
import { Webhook } from 'standardwebhooks'
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture.ts'

export interface Delivery {
  id: string
  timestamp: string
  signature: string
  body: string
  payload: {
    type: string
    timestamp: string
    data: { job?: { id: string; status: string } } & Record<string, unknown>
  }
}

export interface Receiver {
  fixture: HttpsFixture
  url(path?: string): string
  /** The signing secret this receiver verifies with (set once the endpoint is registered). */
  secret: string
  up: boolean
  /** Verified deliveries, in arrival order (repeats included). */
  verified: Delivery[]
  /** Deliveries whose signature did not verify. */
  rejected: number
  /** Sends a raw request to the receiver, as an attacker could. */
  post(headers: Record<string, string>, body: string): Promise<number>
  close(): Promise<void>
}

const readBody = (incoming: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = ''
    incoming.setEncoding('utf8')
    incoming.on('data', (chunk: string) => {
      body += chunk
    })
    incoming.on('end', () => resolve(body))
    incoming.on('error', reject)
  })

export async function startReceiver(): Promise<Receiver> {
  const fixture = await startHttpsFixture()
  const receiver: Receiver = {
    fixture,
    url: (path = '/hook') => `https://127.0.0.1:${fixture.port}${path}`,
    secret: '',
    up: true,
    verified: [],
    rejected: 0,
    post: (headers, body) =>
      new Promise((resolve, reject) => {
        const outgoing = request(
          receiver.url(),
          { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, ca: fixture.ca },
          (response) => {
            response.resume()
            resolve(response.statusCode ?? 0)
          },
        )
        outgoing.on('error', reject)
        outgoing.end(body)
      }),
    close: () => fixture.close(),
  }
  fixture.routes.set('/hook', async (incoming, response) => {
    if (!receiver.up) {
      incoming.socket.destroy()
      return
    }
    const body = await readBody(incoming)
    const headers = {
      'webhook-id': String(incoming.headers['webhook-id']),
      'webhook-timestamp': String(incoming.headers['webhook-timestamp']),
      'webhook-signature': String(incoming.headers['webhook-signature']),
    }
    try {
      const payload = new Webhook(receiver.secret).verify(body, headers) as Delivery['payload']
      receiver.verified.push({
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        payload,
      })
      response.writeHead(204).end()
    } catch {
      receiver.rejected++
      response.writeHead(400).end('bad signature')
    }
  })
  fixture.routes.set('/broken', (_incoming, response) => {
    response.writeHead(500).end('always broken')
  })
  return receiver
}
