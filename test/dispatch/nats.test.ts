// What only the NATS adapter can show: a worker process dying mid-job, the dead-letter stream, and many
// workers creating the same stream and consumer at once.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NatsDispatcher, type NatsDispatcherOptions, topologyOf } from '../../workers/dispatch/nats.ts'
import { ensureTopology } from '../../workers/dispatch/nats-topology.ts'
import { peerReady } from '../support/peers.ts'
import { contractSettings, newJob, recorder } from './contract.ts'
import { type NatsServer, natsUnavailableReason, startNatsServer } from './nats-server.ts'
import { deleteTestStreams, uniqueTopology } from './nats-test-topology.ts'

const ready = peerReady('NATS dispatcher', natsUnavailableReason())
const stallingWorker = fileURLToPath(new URL('./fixtures/stalling-worker.ts', import.meta.url))
const eventually = { timeout: 10_000, interval: 20 }

describe.runIf(ready)('NATS dispatcher', () => {
  let server: NatsServer
  const dispatchers: NatsDispatcher[] = []
  const dispatcher = (options: NatsDispatcherOptions) => {
    const d = new NatsDispatcher(options)
    dispatchers.push(d)
    return d
  }

  beforeAll(async () => {
    server = await startNatsServer()
  })
  afterAll(async () => {
    await Promise.all(dispatchers.map((d) => d.close()))
    if (server) await deleteTestStreams(server.url)
    await server?.stop()
  })

  it('redelivers the job of a worker killed mid-job to another worker, which completes it once', async () => {
    const options = { servers: server.url, ...uniqueTopology(), ...contractSettings }
    const d = dispatcher(options)
    const job = newJob()
    await d.publish(job)

    const child = spawn(process.execPath, [stallingWorker], {
      env: { ...process.env, KILN_TEST_NATS_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string]
    expect(JSON.parse(firstLine)).toEqual({ jobId: job.jobId, attempt: 1 })
    child.kill('SIGKILL')
    await once(child, 'exit')

    const survivor = recorder()
    let completions = 0
    const consumer = await d.consume(
      survivor.options(async () => {
        completions += 1
      }),
    )
    // The dead worker's heartbeats stopped, so the job comes back once ack_wait has passed.
    await vi.waitFor(() => expect(survivor.deliveries).toEqual([{ ...job, attempt: 2 }]), eventually)
    await vi.waitFor(async () => expect(await d.pending()).toBe(0), eventually)
    await consumer.stop()
    expect(completions).toBe(1)
    expect(survivor.deadLetters).toEqual([])
  })

  it('keeps a copy of a dead-lettered job on the dead-letter stream and removes it from the work queue', async () => {
    const topology = uniqueTopology()
    const d = dispatcher({ servers: server.url, ...topology, ...contractSettings, maxDeliver: 2 })
    const seen = recorder()
    const job = newJob('extract_pdf')
    await d.publish(job)
    const consumer = await d.consume(
      seen.options(async () => {
        throw new Error('always fails')
      }),
    )
    await vi.waitFor(() => expect(seen.deadLetters).toEqual([{ jobId: job.jobId, attempts: 2 }]), eventually)
    await consumer.stop()

    const nc = await connect({ servers: server.url })
    try {
      const jsm = await jetstreamManager(nc)
      await vi.waitFor(async () => {
        expect((await jsm.streams.info(topology.stream)).state.messages).toBe(0)
      }, eventually)
      const dead = await jsm.streams.getMessage(`${topology.stream}_DEAD`, {
        last_by_subj: `${topology.subjectPrefix}.dead.extract_pdf`,
      })
      expect(dead?.json()).toEqual(job)
    } finally {
      await nc.close()
    }
  })

  it('lets several workers create the same stream and consumer at once, and applies a changed setting', async () => {
    const topology = uniqueTopology()
    const starting = Array.from({ length: 4 }, () => dispatcher({ servers: server.url, ...topology }))
    expect(await Promise.all(starting.map((d) => d.pending()))).toEqual([0, 0, 0, 0])

    const reconfigured = dispatcher({ servers: server.url, ...topology, maxDeliver: 5, ackWaitMs: 20_000 })
    await reconfigured.publish(newJob())
    expect(await reconfigured.pending()).toBe(1)

    const nc = await connect({ servers: server.url })
    try {
      const info = await (await jetstreamManager(nc)).consumers.info(topology.stream, topology.consumer)
      // maxDeliver handler runs plus the deliveries reserved for retrying the dead letter.
      expect(info.config.max_deliver).toBe(8)
      expect(info.config.ack_wait).toBe(20_000_000_000)
    } finally {
      await nc.close()
    }
  })

  it('converges when many workers start on a fresh topology at the same moment, round after round', async () => {
    // The server may answer a concurrent create of the same stream with "subjects overlap" (nats-server
    // 2.9; it failed CI once). Taken as a failure, that broke this test in 4 runs of 4; every start must
    // end with the stream and consumer.
    const connections = await Promise.all(Array.from({ length: 6 }, () => connect({ servers: server.url })))
    try {
      const managers = await Promise.all(connections.map((nc) => jetstreamManager(nc)))
      for (let round = 0; round < 100; round++) {
        const topology = topologyOf(uniqueTopology())
        await Promise.all(managers.map((jsm) => ensureTopology(jsm, topology)))
        expect(
          (await managers[0]!.consumers.info(topology.stream, topology.consumer)).config.max_deliver,
        ).toBeGreaterThan(3)
      }
    } finally {
      await Promise.all(connections.map((nc) => nc.close()))
    }
  })

  it('still refuses a stream whose subjects overlap another stream of a different name', async () => {
    const first = topologyOf(uniqueTopology())
    const rival = topologyOf({ ...uniqueTopology(), subjectPrefix: first.subjectPrefix })
    const nc = await connect({ servers: server.url })
    try {
      const jsm = await jetstreamManager(nc)
      await ensureTopology(jsm, first)
      await expect(ensureTopology(jsm, rival)).rejects.toThrow(/overlap/)
    } finally {
      await nc.close()
    }
  })

  it('loses no job when the server restarts while workers are consuming', async (context) => {
    if (!server.restart) context.skip('the server given by NATS_URL cannot be restarted by the test')
    const d = dispatcher({ servers: server.url, ...uniqueTopology(), ...contractSettings })
    const seen = recorder()
    const before = Array.from({ length: 4 }, () => newJob())
    const after = Array.from({ length: 4 }, () => newJob())
    const consumer = await d.consume(seen.options(() => delay(50), 2))
    for (const job of before) await d.publish(job)
    await vi.waitFor(() => expect(seen.deliveries.length).toBeGreaterThan(0), eventually)

    await server.restart!()
    // Publishing is the caller's to retry (the event store feeds jobs again); consuming resumes by itself.
    for (const job of after) await vi.waitFor(() => d.publish(job), eventually)

    const all = [...before, ...after].map((job) => job.jobId)
    await vi.waitFor(() => expect(new Set(seen.deliveries.map((x) => x.jobId))).toEqual(new Set(all)), {
      ...eventually,
      timeout: 30_000,
    })
    await vi.waitFor(async () => expect(await d.pending()).toBe(0), eventually)
    await consumer.stop()
    expect(seen.deadLetters).toEqual([])
  })

  it('refuses a tool name that would break the subject', async () => {
    const d = dispatcher({ servers: server.url, ...uniqueTopology() })
    await expect(d.publish({ jobId: 'j1', tool: 'a.b' })).rejects.toThrow(RangeError)
    await expect(d.publish({ jobId: 'j2', tool: 'kiln.>' })).rejects.toThrow(RangeError)
  })
})
