// The OCR renderer (hayro) runs in a child process of its own (native/process-isolated.ts): a page
// whose drawing overflows its stack, which no unwinding catches, ends that child, not the service.
// The page is answered as one the renderer cannot draw, and the next page renders. So is a page
// that keeps it drawing past its time limit.
import { describe, expect, it } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { loadNativeBuild } from '../../native/load.ts'
import { type PdfBinding, renderPdfPage, selectPdfBinding } from '../../native/pdf.ts'
import { objectAfterPages, overflowingPage, type PdfPageSpec, pdfOfPages } from '../support/tiny-pdf.ts'

/** Page 1 as given (or one that overflows the renderer's stack); page 2 shows text. */
function pdfWithHostilePage(hostile?: PdfPageSpec): Buffer {
  const overflowing = overflowingPage(objectAfterPages(2))
  const text = { content: 'BT /F1 18 Tf 20 40 Td (drawn) Tj ET', width: 200, height: 100 }
  return hostile
    ? pdfOfPages([hostile, text])
    : pdfOfPages([{ ...overflowing.page, width: 200, height: 200 }, text], overflowing.objects)
}

/** Page 2 of a page pair drew text: some of its pixels are dark. */
function drawnText(page: { pgm: Buffer; width: number; height: number }): boolean {
  return page.pgm.subarray(page.pgm.length - page.width * page.height).some((byte) => byte < 128)
}

describe('the OCR renderer in a process of its own', () => {
  it('answers a page that overflows its stack as invalid_pdf, and renders the next page', async () => {
    const pdf = pdfWithHostilePage()
    const error = await renderPdfPage(pdf, 1, 72).then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('invalid_pdf')
    expect((error as DomainError).message).toMatch(/stopped the renderer/)
    const page = await renderPdfPage(pdf, 2, 72)
    expect([page.width, page.height]).toEqual([200, 100])
    expect(drawnText(page)).toBe(true)
  })

  it('answers a page still drawing past the time limit as invalid_pdf, and renders the next page', async () => {
    const native = loadNativeBuild<PdfBinding>('pdf-node', 'pdf')
    expect(native, 'the native addon is built').not.toBeNull()
    const { binding } = selectPdfBinding(native, '/nonexistent', 1000)
    // A dash pattern of a hundred-thousandth of a point along a wide line: billions of dashes.
    const pdf = pdfWithHostilePage({
      content: '[0.00001 0.00001] 0 d 50 w 0 0 m 200 200 l S',
      width: 200,
      height: 200,
    })
    const started = Date.now()
    const outcome = await binding.renderPage(pdf, 1, 300)
    expect(outcome.failure).toMatchObject({
      code: 'invalid_pdf',
      message: expect.stringMatching(/longer than 1 s/),
    })
    expect(Date.now() - started).toBeLessThan(10_000)
    const next = await binding.renderPage(pdf, 2, 72)
    expect(next.page && drawnText(next.page)).toBe(true)
  })
})
