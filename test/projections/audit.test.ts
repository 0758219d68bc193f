// The auditor passes a clean history and catches each kind of tampering, done with raw SQL on a
// copy of the event store's file (or of the read-model file).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { audit } from '../../projections/audit.ts'
import { startProjections } from '../../projections/projections.ts'
import { SqliteReadStore } from '../../projections/sqlite-read-store.ts'
import { appendHistory, generateHistory, historyStart } from './support/history.ts'

const now = new Date(historyStart + 36 * 3_600_000)
let dir: string
let copies = 0

/** A copy of the pristine event store (and read models), changed by `tamper` before the audit. */
async function auditCopy(
  tamper: { events?: (db: DatabaseSync) => void; reads?: (db: DatabaseSync) => void } = {},
) {
  copies += 1
  const events = join(dir, `events-${copies}.db`)
  const read = join(dir, `read-${copies}.db`)
  copyFileSync(join(dir, 'events.db'), events)
  copyFileSync(join(dir, 'read.db'), read)
  for (const [file, change] of [
    [events, tamper.events],
    [read, tamper.reads],
  ] as const) {
    if (!change) continue
    const db = new DatabaseSync(file)
    change(db)
    db.close()
  }
  const store = new SqliteEventStore(events)
  const reads = new SqliteReadStore(read)
  try {
    return await audit(store, { reads, now })
  } finally {
    await store.close()
    await reads.close()
  }
}

const positionOf = (db: DatabaseSync, sql: string) => (db.prepare(sql).get() as { position: number }).position

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-audit-'))
  const store = new SqliteEventStore(join(dir, 'events.db'))
  const reads = new SqliteReadStore(join(dir, 'read.db'))
  const head = await appendHistory(store, generateHistory({ accounts: 4, jobsPerAccount: 10, seed: 3 }))
  const projections = await startProjections(store, reads)
  expect(await projections.waitForPosition(head, 10_000)).toBe(true)
  await projections.stop()
  await store.close()
  await reads.close()
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ledger auditor', () => {
  it('finds nothing wrong in a history made by the domain, read models included', async () => {
    const result = await auditCopy()
    expect(result.violations).toEqual([])
    expect(result.ok).toBe(true)
    expect(result.accounts).toBe(4)
    expect(result.events).toBeGreaterThan(200)
    expect(result.readModelCheckpoint).toBeGreaterThan(0)
  })

  it('detects an edited amount', async () => {
    const result = await auditCopy({
      events: (db) => {
        const position = positionOf(
          db,
          "SELECT position FROM events WHERE type = 'JobCharged' LIMIT 1 OFFSET 2",
        )
        db.prepare(
          "UPDATE events SET data = json_set(data, '$.amount', json_extract(data, '$.amount') + 1) WHERE position = ?",
        ).run(position)
      },
    })
    expect(result.ok).toBe(false)
    expect(result.violationsByCheck['hash-chain']).toBeGreaterThan(0)
    expect(result.violationsByCheck['lot-conservation']).toBeGreaterThan(0)
  })

  it('detects a removed event', async () => {
    const result = await auditCopy({
      events: (db) => {
        const position = positionOf(
          db,
          "SELECT position FROM events WHERE type = 'JobAdmitted' LIMIT 1 OFFSET 3",
        )
        db.prepare('DELETE FROM events WHERE position = ?').run(position)
      },
    })
    expect(result.ok).toBe(false)
    expect(result.violationsByCheck['contiguous-revisions']).toBe(1)
    expect(result.violationsByCheck['charge-has-admission']).toBe(1)
  })

  it('detects a reordered event', async () => {
    const result = await auditCopy({
      events: (db) => {
        // Two consecutive ledger events of one account trade places.
        const [first, second] = db
          .prepare(
            "SELECT position, event_id, type, data FROM events WHERE stream_id = (SELECT stream_id FROM events WHERE type = 'JobRefunded' LIMIT 1) AND type IN ('JobCharged', 'JobRefunded') ORDER BY position LIMIT 2",
          )
          .all() as { position: number; event_id: string; type: string; data: string }[]
        const swap = db.prepare('UPDATE events SET event_id = ?, type = ?, data = ? WHERE position = ?')
        swap.run('moving', second!.type, second!.data, first!.position)
        swap.run(first!.event_id, first!.type, first!.data, second!.position)
        db.prepare('UPDATE events SET event_id = ? WHERE position = ?').run(second!.event_id, first!.position)
      },
    })
    expect(result.ok).toBe(false)
    expect(result.violationsByCheck['hash-chain']).toBeGreaterThan(0)
  })

  it('detects a read model that drifted from the events', async () => {
    const result = await auditCopy({
      reads: (db) => {
        db.prepare(
          "UPDATE doc_ledger_entries_g1 SET doc = json_set(doc, '$.amount', 7777) WHERE id = (SELECT id FROM doc_ledger_entries_g1 ORDER BY position DESC LIMIT 1)",
        ).run()
      },
    })
    expect(result.violations).toEqual([
      expect.objectContaining({
        check: 'read-model',
        message: expect.stringMatching(/^Billing differs.*amount is 7777/),
      }),
    ])
  })
})
