// account-{id} streams → the accounts model.
import { type AccountEvent, isLedgerEvent, ledgerEventTypes } from '../../domain/account/events.ts'
import type { RecordedEvent } from '../../domain/ports/event-store.ts'
import type { Content, DocRef, Projector } from '../projector.ts'
import type { Workspace } from '../workspace.ts'
import {
  type AccountDoc,
  type AdmissionDoc,
  accountsModel,
  activeJobsOf,
  collections,
  type JobSpendDoc,
  type LedgerEntryDoc,
  type LotView,
} from './account-docs.ts'

const isAccountEvent = (event: RecordedEvent): boolean => event.streamId.startsWith('account-')
const ms = (iso: string) => Date.parse(iso)

function changeLot(lots: LotView[], lotId: string, change: (lot: LotView) => LotView): LotView[] {
  return lots.map((lot) => (lot.id === lotId ? change(lot) : lot))
}

function returnToLots(
  lots: LotView[],
  allocations: { lotId: string; amount: number }[],
  sign: 1 | -1,
): LotView[] {
  const byLot = new Map(allocations.map((a) => [a.lotId, a.amount]))
  return lots.map((lot) => {
    const amount = byLot.get(lot.id)
    return amount === undefined ? lot : { ...lot, remaining: lot.remaining + sign * amount }
  })
}

function evolveAccount(
  current: Content<AccountDoc> | undefined,
  event: AccountEvent,
): Content<AccountDoc> | undefined {
  if (event.type === 'AccountOpened') {
    if (current) return undefined
    const { login, email } = event.data
    return {
      login,
      email,
      disabled: false,
      openDisputes: [],
      purchased: false,
      lots: [],
      activeJobCount: 0,
      subscription: null,
    }
  }
  if (!current) return undefined
  switch (event.type) {
    case 'CreditsGranted': {
      const d = event.data
      const lot: LotView = {
        id: d.lotId,
        kind: d.lotKind,
        credits: d.credits,
        remaining: d.credits,
        expiresAt: ms(d.expiresAt),
        createdAt: ms(d.at),
        expired: false,
      }
      const purchased = current.purchased || d.lotKind === 'pack' || d.lotKind === 'subscription'
      return { ...current, purchased, lots: [...current.lots, lot] }
    }
    case 'JobAdmitted': {
      const { activeJobs: _ids, ...rest } = current
      return { ...rest, activeJobCount: activeJobsOf(current) + 1 }
    }
    case 'JobCharged':
      return { ...current, lots: returnToLots(current.lots, event.data.allocations, -1) }
    case 'JobRefunded':
      return { ...current, lots: returnToLots(current.lots, event.data.allocations, 1) }
    case 'JobReleased': {
      const { activeJobs: _ids, ...rest } = current
      return { ...rest, activeJobCount: Math.max(0, activeJobsOf(current) - 1) }
    }
    case 'LotExpired': {
      const { amount } = event.data
      return {
        ...current,
        lots: changeLot(current.lots, event.data.lotId, (lot) => ({
          ...lot,
          remaining: lot.remaining - amount,
          expired: true,
        })),
      }
    }
    case 'CreditsClawedBack': {
      const { amount } = event.data
      return {
        ...current,
        lots: changeLot(current.lots, event.data.lotId, (lot) => ({
          ...lot,
          remaining: lot.remaining - amount,
        })),
      }
    }
    case 'AccountFrozen':
      return { ...current, openDisputes: [...new Set([...current.openDisputes, event.data.disputeId])] }
    case 'AccountUnfrozen':
      return { ...current, openDisputes: current.openDisputes.filter((id) => id !== event.data.disputeId) }
    case 'AccountDisabled':
      return { ...current, disabled: true }
    case 'AccountEnabled':
      return { ...current, disabled: false }
    case 'SubscriptionUpdated': {
      const { plan, status, renewsAt, endsAt } = event.data
      return { ...current, subscription: { plan, status, renewsAt, endsAt } }
    }
    default:
      return undefined
  }
}

function ledgerEntry(event: AccountEvent): Content<LedgerEntryDoc> | undefined {
  if (!isLedgerEvent(event)) return undefined
  const d = event.data
  const job = 'jobId' in d ? { jobId: d.jobId, tool: d.tool } : { jobId: null, tool: null }
  const amount = event.type === 'CreditsGranted' ? event.data.credits : event.data.amount
  return { accountId: d.accountId, kind: ledgerEventTypes[event.type], amount, ...job, createdAt: ms(d.at) }
}

function applySpend(workspace: Workspace, recorded: RecordedEvent, event: AccountEvent): void {
  if (event.type === 'JobCharged') {
    const d = event.data
    workspace.update<JobSpendDoc>(collections.spend, d.jobId, recorded, (current) => ({
      accountId: d.accountId,
      tool: d.tool,
      chargedAt: ms(d.at),
      charged: d.amount,
      refunded: current?.refunded ?? 0,
    }))
  } else if (event.type === 'JobRefunded') {
    const { amount } = event.data
    workspace.update<JobSpendDoc>(collections.spend, event.data.jobId, recorded, (current) =>
      current ? { ...current, refunded: current.refunded + amount } : undefined,
    )
  }
}

export const accountsProjector: Projector = {
  model: accountsModel,
  collections: {
    [collections.accounts]: [],
    [collections.ledger]: [['accountId', 'position']],
    [collections.spend]: [['accountId', 'chargedAt']],
    // The tool too, so GET /v1/me's count by tool is answered from the index alone.
    [collections.admissions]: [['accountId', 'at', 'tool']],
  },
  touches(event) {
    if (!isAccountEvent(event)) return []
    const d = event.data as { accountId: string; jobId?: string }
    const refs: DocRef[] = [{ collection: collections.accounts, id: d.accountId }]
    if (isLedgerEvent(event)) refs.push({ collection: collections.ledger, id: event.id, created: true })
    if (event.type === 'JobCharged' || event.type === 'JobRefunded')
      refs.push({ collection: collections.spend, id: d.jobId! })
    // A job is admitted once: its admission document is that event's.
    if (event.type === 'JobAdmitted')
      refs.push({ collection: collections.admissions, id: d.jobId!, created: true })
    return refs
  },
  apply(recorded, workspace) {
    if (!isAccountEvent(recorded)) return
    const event = { type: recorded.type, data: recorded.data } as AccountEvent
    const accountId = event.data.accountId
    workspace.update<AccountDoc>(collections.accounts, accountId, recorded, (current) =>
      evolveAccount(current, event),
    )
    workspace.update<LedgerEntryDoc>(collections.ledger, recorded.id, recorded, (current) =>
      current ? undefined : ledgerEntry(event),
    )
    applySpend(workspace, recorded, event)
    if (event.type === 'JobAdmitted') {
      const { tool, at } = event.data
      workspace.update<AdmissionDoc>(collections.admissions, event.data.jobId, recorded, (current) =>
        current ? undefined : { accountId, tool, at: ms(at) },
      )
    }
  },
}
