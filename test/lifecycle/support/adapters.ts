// The two dispatch adapters a lifecycle suite runs against: the embedded in-process queue, and NATS
// JetStream on a real nats-server of its own (skipped, saying why, when no nats-server is installed).
import type { Config } from '../../../app/config.ts'
import { type NatsServer, natsUnavailableReason, startNatsServer } from '../../dispatch/nats-server.ts'

export interface DispatchAdapter {
  name: 'in-process' | 'nats'
  /** Why this adapter cannot run here; undefined when it can. */
  unavailable: string | undefined
  /** Starts what the adapter needs and returns the configuration that selects it. */
  start(): Promise<{ config: Partial<Config>; nats: NatsServer | null; stop(): Promise<void> }>
}

export const adapters: DispatchAdapter[] = [
  {
    name: 'in-process',
    unavailable: undefined,
    start: async () => ({ config: { natsUrl: null }, nats: null, stop: async () => {} }),
  },
  {
    name: 'nats',
    unavailable: natsUnavailableReason(),
    async start() {
      const nats = await startNatsServer()
      return { config: { natsUrl: nats.url }, nats, stop: () => nats.stop() }
    },
  },
]
