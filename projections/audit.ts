// The ledger auditor: replays every stream of the event store in global order, recomputes each
// account's lots and ledger and checks them (see audit/account-ledger.ts), checks every stream's
// event ids and revisions, and, given the read models, checks that Me and Billing equal a fresh
// replay of the events up to the accounts model's checkpoint.
import { isDeepStrictEqual } from 'node:util'
import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts'
import { accountsModel } from './accounts/account-docs.ts'
import { getBilling } from './accounts/billing.ts'
import { getMe } from './accounts/me.ts'
import { accountsProjector } from './accounts/projector.ts'
import { AccountLedger } from './audit/account-ledger.ts'
import type { Check, Violation } from './audit/violations.ts'
import { activeGeneration, prepareGeneration, readCheckpoint } from './generations.ts'
import { projectBatch } from './project-batch.ts'
import { ReadModels } from './read-models.ts'
import type { ReadStore } from './read-store.ts'
import { SqliteReadStore } from './sqlite-read-store.ts'

export type { Violation } from './audit/violations.ts'

export interface AuditReport {
  ok: boolean
  events: number
  streams: number
  accounts: number
  jobs: number
  /** The accounts model's checkpoint the read models were compared at; null when not compared. */
  readModelCheckpoint: number | null
  seconds: number
  violationsByCheck: Partial<Record<Check, number>>
  violations: Violation[]
}

export interface AuditOptions {
  /** Compare the Me and Billing read models with a replay. */
  reads?: ReadStore
  now?: Date
  pageSize?: number
  /** Violations listed in full; all are counted. */
  maxListed?: number
}

export async function audit(
  store: EventStore,
  { reads, now = new Date(), pageSize = 5000, maxListed = 1000 }: AuditOptions = {},
): Promise<AuditReport> {
  const started = performance.now()
  const violations: Violation[] = []
  const violationsByCheck: Partial<Record<Check, number>> = {}
  const report = (check: Check, stream: string, position: number | null, message: string) => {
    violationsByCheck[check] = (violationsByCheck[check] ?? 0) + 1
    if (violations.length < maxListed) violations.push({ check, stream, position, message })
  }
  const ids = new Set<string>()
  const revisions = new Map<string, number>()
  const ledgers = new Map<string, AccountLedger>()
  let jobs = 0
  let events = 0

  const checkpoint = reads
    ? await readCheckpoint(reads, accountsModel, await activeGeneration(reads, accountsModel))
    : null
  const replay = reads ? new SqliteReadStore(':memory:') : null
  if (replay) await prepareGeneration(replay, accountsProjector, 1)

  for (let position = 0; ; ) {
    const page = await store.readAll(position, pageSize)
    if (page.length === 0) break
    position = page.at(-1)!.position
    events += page.length
    for (const event of page) {
      if (ids.has(event.id))
        report('unique-event-ids', event.streamId, event.position, `event id ${event.id} appears twice`)
      ids.add(event.id)
      const expected = (revisions.get(event.streamId) ?? -1) + 1
      if (event.revision !== expected)
        report(
          'contiguous-revisions',
          event.streamId,
          event.position,
          `revision ${event.revision} where ${expected} was next`,
        )
      if (!revisions.has(event.streamId) && event.streamId.startsWith('job-')) jobs += 1
      revisions.set(event.streamId, event.revision)
      if (event.streamId.startsWith('account-')) ledgerOf(ledgers, event.streamId, report).apply(event)
    }
    if (replay && checkpoint !== null) {
      const upToCheckpoint = page.filter((event: RecordedEvent) => event.position <= checkpoint)
      await projectBatch(replay, accountsProjector, 1, upToCheckpoint)
    }
  }
  for (const ledger of ledgers.values()) ledger.finish(now.getTime())
  if (reads && replay) {
    await compareReadModels(new ReadModels(reads), new ReadModels(replay), [...ledgers.keys()], now, report)
    await replay.close()
  }
  return {
    ok: violations.length === 0,
    events,
    streams: revisions.size,
    accounts: ledgers.size,
    jobs,
    readModelCheckpoint: checkpoint,
    seconds: (performance.now() - started) / 1000,
    violationsByCheck,
    violations,
  }
}

function ledgerOf(
  ledgers: Map<string, AccountLedger>,
  stream: string,
  report: ConstructorParameters<typeof AccountLedger>[1],
): AccountLedger {
  let ledger = ledgers.get(stream)
  if (!ledger) {
    ledger = new AccountLedger(stream, report)
    ledgers.set(stream, ledger)
  }
  return ledger
}

async function compareReadModels(
  live: ReadModels,
  replayed: ReadModels,
  accountStreams: string[],
  now: Date,
  report: (check: Check, stream: string, position: number | null, message: string) => void,
): Promise<void> {
  const accountIds = new Set(accountStreams.map((stream) => stream.slice('account-'.length)))
  const stored = await (await live.collection(accountsModel, 'accounts')).find({})
  for (const doc of stored) accountIds.add(doc.id)
  for (const accountId of accountIds) {
    const stream = `account-${accountId}`
    const options = { now, auth: 'key' as const }
    const [me, expectedMe] = await Promise.all([
      getMe(live, accountId, options),
      getMe(replayed, accountId, options),
    ])
    if (!isDeepStrictEqual(me, expectedMe))
      report('read-model', stream, null, `Me differs from the replay: ${difference(me, expectedMe)}`)
    const [billing, expectedBilling] = await Promise.all([
      getBilling(live, accountId, { now }),
      getBilling(replayed, accountId, { now }),
    ])
    if (!isDeepStrictEqual(billing, expectedBilling))
      report(
        'read-model',
        stream,
        null,
        `Billing differs from the replay: ${difference(billing, expectedBilling)}`,
      )
  }
}

/** The first differing path, for a message a person can act on. */
function difference(actual: unknown, expected: unknown, path = ''): string {
  if (typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null) {
    const keys = new Set([...Object.keys(actual), ...Object.keys(expected)])
    for (const key of keys) {
      const a = (actual as Record<string, unknown>)[key]
      const e = (expected as Record<string, unknown>)[key]
      if (!isDeepStrictEqual(a, e)) return difference(a, e, `${path}.${key}`)
    }
  }
  return `${path || '(whole)'} is ${JSON.stringify(actual)}, the replay gives ${JSON.stringify(expected)}`
}

export function formatReport(result: AuditReport): string {
  const lines = [
    `Audited ${result.events} events in ${result.streams} streams (${result.accounts} accounts, ${result.jobs} jobs) in ${result.seconds.toFixed(2)} s.`,
    result.readModelCheckpoint === null
      ? 'Read models: not compared.'
      : `Read models: Me and Billing compared with a replay up to position ${result.readModelCheckpoint}.`,
  ]
  if (result.ok) lines.push('No violations.')
  else {
    const counts = Object.entries(result.violationsByCheck).map(([check, n]) => `${check}: ${n}`)
    lines.push(`VIOLATIONS (${counts.join(', ')}):`)
    for (const v of result.violations)
      lines.push(`  [${v.check}] ${v.stream}${v.position === null ? '' : ` @${v.position}`}: ${v.message}`)
  }
  return lines.join('\n')
}
