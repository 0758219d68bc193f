// Credits a succeeded job returns (OCR charged for a page the renderer could not draw) go back on the
// ledger however the job is settled: by the worker that ran it (test/api/file-jobs.e2e.test.ts), or,
// when that worker ended between recording the success and settling the account, by the housekeeper,
// which reads what to return from the job's own JobSucceeded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountStream } from '../../domain/account/events.ts'
import { audit } from '../../projections/audit.ts'
import { tesseractInstalled } from '../pdf/scanned.ts'
import { peerReady } from '../support/peers.ts'
import { startTestService, type TestService, waitForJob } from '../support/service.ts'
import { objectAfterPages, overflowingPage, pdfOfPages, textPage } from '../support/tiny-pdf.ts'
import { balanceOf, type JobView, pollUntil } from './support/jobs.ts'
import { jobBooks } from './support/ledger.ts'
import { storeAppendingThrough } from './support/store-views.ts'

const ready = peerReady('returned credits', !tesseractInstalled() && 'tesseract is not installed')

let service: TestService

beforeAll(async () => {
  service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } })
})
afterAll(() => service?.close())

/** Makes the next settling of `accountId`'s job fail, as if its worker ended there; says whether it did. */
function loseNextSettling(accountId: string): { lost: () => boolean } {
  let lost = false
  const ctx = service.services.ctx
  const original = ctx.store
  ctx.store = storeAppendingThrough(original, async (streamId, events, expected) => {
    if (streamId === accountStream(accountId) && events.some((e) => e.type === 'JobReleased')) {
      ctx.store = original
      lost = true
      throw new Error('the worker ended before settling the account')
    }
    return original.append(streamId, events, expected)
  })
  return { lost: () => lost }
}

describe.skipIf(!ready)('credits a succeeded job returns', () => {
  it('go back through the housekeeper when the worker ended before settling; the ledger proves itself', async () => {
    const bo = await service.account({ credits: 10, login: 'bo' })
    const settling = loseNextSettling(bo.accountId)
    const overflowing = overflowingPage(objectAfterPages(3))
    const pdf = pdfOfPages([overflowing.page, textPage('first'), textPage('second')], overflowing.objects)
    const response = await bo.request('/v1/tools/extract_pdf/jobs?filename=kiln.pdf&ocr=force', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: pdf,
    })
    expect(response.status).toBe(202)
    const { id } = (await response.json()) as JobView
    const job = (await waitForJob(bo, id)) as unknown as JobView
    expect(job).toMatchObject({ status: 'succeeded', credits_charged: 2 })
    expect(settling.lost()).toBe(true)
    // The housekeeper settles the job it finds succeeded and not released: 1 of the 3 credits goes back.
    const store = service.services.ctx.store
    await pollUntil(
      () => jobBooks(store, bo.accountId, id),
      (books) => books.refunds > 0,
    )
    expect(await jobBooks(store, bo.accountId, id)).toMatchObject({ charged: 3, refunds: 1, refunded: 1 })
    await pollUntil(
      () => balanceOf(bo),
      (balance) => balance === 8,
    )
    const report = await audit(store)
    expect(report.violations).toEqual([])
  })
})
