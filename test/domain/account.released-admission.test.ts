// Issue 20 item 8: an admission the housekeeper released as orphaned, whose job is recorded later,
// must never run free. The account decides: the charge of a released admission is declined (once),
// and the housekeeper's release never touches a job that was already charged.
import { describe, expect, it } from 'vitest'
import { accountDecider } from '../../app/deciders.ts'
import type { AccountCommand } from '../../domain/account/commands.ts'
import { balanceAt, foldAccount } from '../../domain/account/state.ts'
import { specFor } from '../support/given-when-then.ts'
import { accountId, admit, charge, finish, history, iso, open, t0 } from './account-fixtures.ts'

const given = specFor(accountDecider)
const releaseOrphan = (jobId: string, now: number): AccountCommand => ({
  type: 'ReleaseOrphanedAdmission',
  data: { jobId, now },
})

describe('account: a released admission never runs free', () => {
  it('the housekeeper releases an uncharged admission, freeing its slot', () => {
    given(history([open(10), admit('j1', t0)]))
      .when(releaseOrphan('j1', t0 + 61_000))
      .then([
        { type: 'JobReleased', data: { accountId, jobId: 'j1', outcome: 'canceled', at: iso(t0 + 61_000) } },
      ])
  })

  it('the charge of a released admission is declined, whatever the price, and nothing is charged', () => {
    const released = history([open(10), admit('j1', t0), releaseOrphan('j1', t0 + 61_000)])
    for (const price of [0, 4])
      given(released)
        .when(charge('j1', price, t0 + 62_000))
        .then([
          {
            type: 'JobChargeDeclined',
            data: {
              accountId,
              jobId: 'j1',
              tool: 'split_3d_model',
              price,
              available: 0,
              reason: 'admission_released',
              at: iso(t0 + 62_000),
            },
          },
        ])
    const after = foldAccount(
      history([open(10), admit('j1', t0), releaseOrphan('j1', t0 + 61_000), charge('j1', 4, t0 + 62_000)]),
    )
    expect(after.jobs.get('j1')).toMatchObject({ charged: null, declined: { reason: 'admission_released' } })
    expect(balanceAt(after, t0 + 62_000)).toBe(10)
  })

  it('a redelivered charge after the decline changes nothing and leaves the job declined', () => {
    const declined = history([
      open(10),
      admit('j1', t0),
      releaseOrphan('j1', t0 + 61_000),
      charge('j1', 4, t0 + 62_000),
    ])
    given(declined)
      .when(charge('j1', 4, t0 + 63_000))
      .thenNothing()
  })

  it('a decline for want of credits stays one too on a redelivery', () => {
    const declined = history([open(5), admit('j1', t0), charge('j1', 6, t0)])
    given(declined)
      .when(charge('j1', 6, t0 + 1))
      .thenNothing()
    expect(foldAccount(declined).jobs.get('j1')).toMatchObject({
      charged: null,
      declined: { reason: 'insufficient_credits', available: 5 },
    })
  })

  it('the housekeeper never releases (nor refunds) a job that was charged: it is running, not orphaned', () => {
    given(history([open(10), admit('j1', t0), charge('j1', 4, t0 + 1)]))
      .when(releaseOrphan('j1', t0 + 61_000))
      .thenNothing()
  })

  it('a settled job is not released again, and an unknown one is ignored', () => {
    given(history([open(10), admit('j1', t0), finish('j1', 'canceled', t0)]))
      .when(releaseOrphan('j1', t0 + 61_000))
      .thenNothing()
    given(history([open(10)]))
      .when(releaseOrphan('nope', t0))
      .thenNothing()
  })
})
