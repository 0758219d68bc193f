// The auditor's checks for issue 20 items 7 and 8, on logs the deciders no longer write: a payment
// that granted two lots, and a job charged after its admission was released. A clean history of the
// same accounts passes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../../adapters/eventstore/sqlite.ts'
import { deterministicEventId } from '../../app/event-ids.ts'
import { type AccountEvent, accountStream } from '../../domain/account/events.ts'
import { audit } from '../../projections/audit.ts'
import { accountId, admit, charge, day, grant, history, open, t0 } from '../domain/account-fixtures.ts'

let dir: string | null = null
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = null
})

async function auditOf(events: AccountEvent[]) {
  dir = mkdtempSync(join(tmpdir(), 'kiln-audit-payments-'))
  const store = new SqliteEventStore(join(dir, 'events.db'))
  const stream = accountStream(accountId)
  try {
    await store.append(
      stream,
      events.map((event) => ({ id: deterministicEventId(stream, event.type, event.data), ...event })),
      'no_stream',
    )
    return await audit(store, { now: new Date(t0 + day) })
  } finally {
    await store.close()
  }
}

describe('auditor: money rules of issue 20', () => {
  it('passes one lot per payment and a charge of a live admission', async () => {
    const report = await auditOf(
      history([
        open(0),
        grant('lot_a', 500, t0, t0 + 365 * day, 'pack', 'pi_1'),
        admit('j1', t0),
        charge('j1', 4, t0),
      ]),
    )
    expect(report.violations).toEqual([])
  })

  it('flags a payment that granted a second lot', async () => {
    const report = await auditOf(
      history([
        open(0),
        grant('lot_a', 500, t0, t0 + 365 * day, 'pack', 'pi_1'),
        grant('lot_b', 500, t0, t0 + 365 * day, 'pack', 'pi_1'),
      ]),
    )
    expect(report.violations.map((v) => v.check)).toEqual(['single-grant-per-payment'])
  })

  it('flags a job charged after its admission was released', async () => {
    const events = history([open(10), admit('j1', t0), charge('j1', 4, t0 + 1)])
    const released: AccountEvent = {
      type: 'JobReleased',
      data: { accountId, jobId: 'j1', outcome: 'canceled', at: new Date(t0).toISOString() },
    }
    const report = await auditOf([...events.slice(0, -1), released, events.at(-1)!])
    expect(report.violations.map((v) => v.check)).toContain('charge-has-admission')
  })
})
