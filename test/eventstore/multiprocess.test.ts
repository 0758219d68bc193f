// Several OS processes against one SQLite event store: admissions stay exact under contention, and
// an acknowledged append survives SIGKILL.
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { accountDecider } from '../../app/deciders.ts'
import { handleCommand } from '../../app/handle-command.ts'
import { accountStream } from '../../domain/account/events.ts'

const run = promisify(execFile)
const fixtures = join(import.meta.dirname, 'fixtures')

describe('SQLite event store across processes', () => {
  it('50 admissions at once from 5 processes with credit for 5 admit exactly 5', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kiln-mp-')), 'events.db')
    const store = new SqliteEventStore(path)
    const now = Date.now()
    await handleCommand(store, accountStream('a1'), accountDecider, {
      type: 'OpenAccount',
      data: {
        accountId: 'a1',
        login: 'a',
        email: null,
        signupLotId: 'lot_1',
        signupCredits: 5,
        signupExpiresAt: now + 86_400_000,
        now,
      },
    })

    const results = await Promise.all(
      Array.from({ length: 5 }, (_, p) =>
        run(process.execPath, [join(fixtures, 'admit-worker.ts'), path, 'a1', `p${p}`, '10']),
      ),
    )
    const outcomes = results.flatMap((r) => JSON.parse(r.stdout.trim()) as string[])
    expect(outcomes).toHaveLength(50)
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(5)
    expect(outcomes.filter((o) => o === 'insufficient_credits')).toHaveLength(45)

    const events = await store.readStream(accountStream('a1'))
    expect(events.filter((e) => e.type === 'JobAdmitted')).toHaveLength(5)
    expect(events.map((e) => e.revision)).toEqual(events.map((_, i) => i))
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length)
    await store.close()
  })

  it('an append acknowledged before SIGKILL is there after a restart', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kiln-kill-')), 'events.db')
    const child = spawn(process.execPath, [join(fixtures, 'append-until-killed.ts'), path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let lastAck = -1
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) {
          const match = /^ack (\d+)$/.exec(line)
          if (match) lastAck = Number(match[1])
        }
        if (lastAck >= 50 && !child.killed) {
          child.kill('SIGKILL')
          resolve()
        }
      })
    })
    await new Promise((resolve) => child.once('exit', resolve))
    const store = new SqliteEventStore(path)
    const events = await store.readStream('durability-1')
    expect(events.length).toBeGreaterThanOrEqual(lastAck + 1)
    expect(events.map((e) => (e.data as { n: number }).n)).toEqual(events.map((_, i) => i))
    await store.close()
  })
})
